/**
 * Stage "parse": the verified bytes become a `WebhookPayloadDto` (400 when they are not JSON, are nested
 * deeper than {@link MAX_JSON_DEPTH}, or are not an envelope with an event name and an instance). The
 * delivery id is settled here: the signed one, else the body's digest. Internal.
 *
 * @module
 */

import { WebhookPayloadDto } from "../payload.ts";
import { BODIES, refuse } from "./respond.ts";
import type { NextFunction } from "../../util/compose.ts";
import type { Receiver, RequestState } from "./state.ts";

const decoder = new TextDecoder();

/**
 * The deepest nesting of objects and arrays a body may have. The server's envelopes stay far below it (a
 * quoted message is about ten levels); every deeper body is refused before `JSON.parse`, so no recursive
 * walk after it (a store's structured clone, a serializer) can overflow the stack on one.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34, BACKSLASH = 92, OPEN_OBJECT = 123, CLOSE_OBJECT = 125, OPEN_ARRAY = 91, CLOSE_ARRAY = 93;

/** Whether `text` has at most `max` opening brackets, strings included (then it cannot nest deeper). */
function fewBrackets(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf("{"); i >= 0; i = text.indexOf("{", i + 1)) if (++count > max) return false;
  for (let i = text.indexOf("["); i >= 0; i = text.indexOf("[", i + 1)) if (++count > max) return false;
  return true;
}

/** The index of the quote that closes the string opened at `start`, or the text's length when none does. */
function stringEnd(text: string, start: number): number {
  let end = start;
  while (true) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/** Whether the JSON `text` nests objects and arrays deeper than `max` (brackets in strings aside). */
export function nestedDeeperThan(text: string, max: number): boolean {
  // The usual envelope has a handful of brackets: the engine's string search counts them far faster than a
  // loop over every character, which only a body with more brackets than the limit needs.
  if (fewBrackets(text, max)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) i = stringEnd(text, i);
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Stage "parse": on with `state.payload` placed in its line, or answers 400. */
export async function parseStage(state: RequestState, next: NextFunction): Promise<void> {
  const receiver = state.receiver;
  const text = decoder.decode(state.body);
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    // The digest of a large body may still be running: answered once it settled, nothing left behind.
    await state.digest?.catch(() => {});
    const detail = `body nested deeper than ${MAX_JSON_DEPTH} levels`;
    state.response = refuse(receiver, 400, BODIES.tooDeep, "too_deep", detail);
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    state.digest?.catch(() => {});
    state.response = refuse(receiver, 400, BODIES.notJson, "invalid_json", "body is not JSON");
    return;
  }
  if (state.deliveryId === undefined && state.digest !== undefined) state.deliveryId = await state.digest;
  state.response = toPayload(receiver, state, parsed);
  if (state.response !== undefined) return;
  state.arrival?.place(state.payload);
  await next();
}

function toPayload(receiver: Receiver, state: RequestState, parsed: unknown): Response | undefined {
  const payload = WebhookPayloadDto.from(parsed, {
    instance: state.route.instance,
    event: state.route.event,
    deliveryId: state.deliveryId,
    receivedAt: state.receivedAt,
  });
  if (payload === null) {
    return refuse(
      receiver,
      400,
      BODIES.noEvent,
      "invalid_envelope",
      "body has no valid event name or instance",
    );
  }
  // Every record (claims, logs, messages) is kept per instance: without one there is nothing to key it by.
  // Whitespace names none either (a blank URL segment, a body's " ").
  if (payload.instance.trim() === "") {
    return refuse(receiver, 400, BODIES.noInstance, "no_instance", "body has no instance, nor has the URL");
  }
  state.payload = payload;
  return undefined;
}
