/**
 * Stage "parse": the verified bytes become a `WebhookPayloadDto` (400 when they are not JSON, are nested
 * deeper than {@link MAX_JSON_DEPTH}, or are not an envelope with an event name and an instance). The
 * delivery id is settled here: the signed one, else the body's digest. Internal.
 *
 * @module
 */

import { WebhookPayloadDto } from "../payload.ts";
import { BODIES, refuse } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

const decoder = new TextDecoder();

/**
 * The deepest nesting of objects and arrays a body may have. The server's envelopes stay far below it (a
 * quoted message is about ten levels); every deeper body is refused before `JSON.parse`, so no recursive
 * walk after it (a store's structured clone, a serializer) can overflow the stack on one.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34, BACKSLASH = 92, OPEN_OBJECT = 123, CLOSE_OBJECT = 125, OPEN_ARRAY = 91, CLOSE_ARRAY = 93;

/** Whether the JSON text in `bytes` nests objects and arrays deeper than `max` (brackets in strings aside). */
export function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Parse `state.body` into `state.payload`: the refusal, or undefined to go on. */
export async function parseStage(receiver: Receiver, state: RequestState): Promise<Response | undefined> {
  if (nestedDeeperThan(state.body, MAX_JSON_DEPTH)) {
    // The digest of a large body may still be running: answered once it settled, nothing left behind.
    await state.digest?.catch(() => {});
    const detail = `body nested deeper than ${MAX_JSON_DEPTH} levels`;
    return refuse(receiver, 400, BODIES.tooDeep, "too_deep", detail);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(state.body));
  } catch {
    state.digest?.catch(() => {});
    return refuse(receiver, 400, BODIES.notJson, "invalid_json", "body is not JSON");
  }
  if (state.deliveryId === undefined && state.digest !== undefined) state.deliveryId = await state.digest;
  return toPayload(receiver, state, parsed);
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
