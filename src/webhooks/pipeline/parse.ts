/**
 * Stage "parse": the verified bytes become a `WebhookPayloadDto` (400 when they are not JSON or not an
 * envelope with an event name). The delivery id is settled here: the signed one, else the body's digest.
 * Internal.
 *
 * @module
 */

import { WebhookPayloadDto } from "../payload.ts";
import { BODIES, refuse } from "./respond.ts";
import type { Receiver, RequestState } from "./state.ts";

const decoder = new TextDecoder();

/**
 * Parse `state.body` into `state.payload`. Synchronous unless the digest must still be awaited; the
 * refusal, or undefined to go on.
 */
export function parseStage(
  receiver: Receiver,
  state: RequestState,
): Response | undefined | Promise<Response | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(state.body));
  } catch {
    state.digest?.catch(() => {});
    return refuse(receiver, 400, BODIES.notJson, "invalid_json", "body is not JSON");
  }
  if (state.deliveryId === undefined && state.digest !== undefined) {
    return state.digest.then((digest) => {
      state.deliveryId = digest;
      return toPayload(receiver, state, parsed);
    });
  }
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
  state.payload = payload;
  return undefined;
}
