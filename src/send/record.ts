/**
 * The record stage: each send is an outbound record in the store, `pending` before the request, then `sent`
 * (with the message id) or `failed` (with the error, whether its outcome is unknown and whether it is
 * permanent). In the pipeline only when a store is configured. The store is a record of sends, not a gate
 * on them: a failed write is logged and the send goes ahead.
 *
 * @module
 */

import { isOutcomeUnknown, isPermanentFailure } from "./outcome.ts";
import { getGatewayLogger } from "../log.ts";
import type { GatewayStore, OutboundMessageRecord } from "../store/store.ts";
import type { SendContext, SendStage } from "./types.ts";

const log = getGatewayLogger("store");

/** A failed store write after a send must not hide the send's own outcome: it is logged instead. */
async function updateRecord(
  store: GatewayStore,
  id: string,
  changes: Partial<Omit<OutboundMessageRecord, "id" | "createdAt">>,
): Promise<void> {
  try {
    await store.updateOutbound(id, changes);
  } catch (error) {
    log.warn("Cannot update outbound record {id}: {error}", { id, error: String(error) });
  }
}

/**
 * Save the `pending` record (or, for a key whose earlier send was released, move that send's record back
 * to `pending`, so one key keeps one record). False when the store failed.
 */
async function recordPending(
  store: GatewayStore,
  now: number,
  send: SendContext,
  id: string,
): Promise<boolean> {
  try {
    if (send.reuseRecord) {
      const reused = await store.updateOutbound(id, {
        status: "pending",
        outcomeUnknown: false,
        permanent: undefined,
        lastError: undefined,
        claimedUntil: send.claimedUntil,
        updatedAt: now,
      });
      if (reused !== null) return true;
    }
    await store.saveOutbound({
      id,
      connection: send.ref.connection,
      instance: send.ref.instance,
      recipient: send.to,
      type: send.type,
      route: send.route,
      body: send.body,
      status: "pending",
      outcomeUnknown: false,
      retryCount: 0,
      ...(send.idempotencyKey === undefined ? {} : { idempotencyKey: send.idempotencyKey }),
      claimedUntil: send.claimedUntil,
      createdAt: now,
      updatedAt: now,
    });
    return true;
  } catch (error) {
    log.warn("Cannot record outbound message to {to}: {error}", { to: send.to, error: String(error) });
    return false;
  }
}

/** The record stage over `store`. */
export function recordStage(store: GatewayStore, now: () => number): SendStage {
  return async (send, next) => {
    const id = send.recordId ??= crypto.randomUUID();
    if (!await recordPending(store, now(), send, id)) return await next();
    try {
      await next();
      const messageId = send.response!.json<unknown>("key.id");
      await updateRecord(store, id, {
        status: "sent",
        messageId: typeof messageId === "string" ? messageId : undefined,
        claimedUntil: undefined,
        updatedAt: now(),
      });
    } catch (error) {
      await updateRecord(store, id, {
        status: "failed",
        outcomeUnknown: isOutcomeUnknown(error),
        ...(isPermanentFailure(error) ? { permanent: true } : {}),
        lastError: error instanceof Error ? error.message : String(error),
        claimedUntil: undefined,
        updatedAt: now(),
      });
      throw error;
    }
  };
}
