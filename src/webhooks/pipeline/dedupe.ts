/**
 * Stage "dedupe": a redelivery of a webhook already processed is answered 200 without running the
 * handlers; one still being processed gets 409 (the server retries it, and the first run may yet fail).
 * The claim is taken here, except in KV queue mode with a KV dedupe on the same KV: there the claim and the
 * job commit together, in the queue dispatch. Internal.
 *
 * @module
 */

import { getGatewayLogger } from "../../log.ts";
import { describeError, saveWebhookLog } from "../run.ts";
import { BODIES, count, refuse, respond, RETRY_AFTER } from "./respond.ts";
import type { NextFunction } from "../../util/compose.ts";
import type { Receiver, RequestState } from "./state.ts";

const logger = getGatewayLogger("webhook");

/** Stage "dedupe": on with the delivery claimed; a duplicate or a failed claim is answered here. */
export async function dedupeStage(state: RequestState, next: NextFunction): Promise<void> {
  state.response = await claimed(state.receiver, state);
  if (state.response === undefined) await next();
}

/** Claim the delivery; the answer for a duplicate or a failed claim, or undefined to go on. */
async function claimed(receiver: Receiver, state: RequestState): Promise<Response | undefined> {
  const dedupe = receiver.dedupe;
  const id = state.deliveryId;
  if (dedupe === undefined || id === undefined) return undefined;
  if (receiver.queue?.claimsAtomically === true && receiver.queue.modeFor(state.ctx) === "queue") {
    return undefined;
  }
  let fresh: boolean;
  try {
    fresh = await dedupe.claim(id, state.receivedAt);
  } catch (error) {
    return claimFailed(receiver, state, error);
  }
  return fresh ? undefined : await alreadyClaimed(receiver, state);
}

/** 503: the dedupe store could not be asked; the server retries. */
export function claimFailed(receiver: Receiver, state: RequestState, error: unknown): Response {
  return refuse(
    receiver,
    503,
    BODIES.unavailable,
    "dedupe_unavailable",
    `dedupe claim failed: ${describeError(error)}`,
    state.payload.event,
    RETRY_AFTER,
  );
}

/** The answer for a delivery someone else claimed: 409 while it is processed, else 200 duplicate. */
export async function alreadyClaimed(receiver: Receiver, state: RequestState): Promise<Response> {
  const id = state.deliveryId!;
  const event = state.payload.event;
  const now = state.receivedAt;
  if (await receiver.dedupe!.state?.(id, now) === "processing") {
    return refuse(
      receiver,
      409,
      BODIES.inProgress,
      "in_progress",
      "the same delivery is being processed",
      event,
      RETRY_AFTER,
    );
  }
  count(receiver, event, "duplicate");
  if (receiver.store !== undefined) {
    await saveWebhookLog(
      receiver.store,
      { id: `${id}/duplicate/${now}`, event, instance: state.payload.instance, receivedAt: now },
      "duplicate",
      now,
    );
  }
  return respond(200, BODIES.duplicate);
}

/** The claimed delivery was processed or queued: refuse its redeliveries for the window. */
export async function completeClaim(receiver: Receiver, id: string | undefined): Promise<void> {
  if (receiver.dedupe === undefined || id === undefined) return;
  try {
    await receiver.dedupe.complete(id, receiver.now());
  } catch (error) {
    logger.warn("Cannot record processed webhook: {error}", { error: describeError(error) });
  }
}

/** Processing failed: give the claim back so that the server's retry runs. */
export function releaseClaim(receiver: Receiver, id: string | undefined): void {
  if (receiver.dedupe === undefined || id === undefined) return;
  receiver.dedupe.release(id).catch((error) =>
    logger.warn("Cannot release dedupe claim: {error}", { error: describeError(error) })
  );
}
