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

/** Save the `pending` record (a released key's record moves back to `pending`); false on a store failure. */
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

/**
 * The record stage: each send is an outbound record, `pending` before the request, then `sent` or `failed`
 * (with whether its outcome is unknown or permanent). A record, not a gate: a failed write is logged and the
 * send goes ahead.
 */
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
