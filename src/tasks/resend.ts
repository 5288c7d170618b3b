/**
 * One resend by `retryFailedMessages`: claim, hold the key, send the original body, record the outcome.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import { isOutcomeUnknown, isPermanentFailure } from "../send/outcome.ts";
import { MessageSent } from "../events.ts";
import { getGatewayLogger } from "../log.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import {
  type IdempotencyClaims,
  type IdempotencyScope,
  recordKeyScope,
  sendFingerprint,
} from "../store/idempotency.ts";
import type { GatewayStore, OutboundMessageRecord } from "../store/store.ts";
import { errorMessage } from "../util/error_message.ts";
import type { RetryRecordResult, RetryService, RetrySkipReason } from "./retry_failed_types.ts";

const MEDIA_TYPES = new Set(["media", "image", "video", "document", "audio", "ptv", "sticker"]);
const MEDIA_ROUTE = /\/message\/send(Media|WhatsAppAudio|Ptv|Sticker)\//;
const log = getGatewayLogger("tasks", "retry-failed");

function bucketFor(record: OutboundMessageRecord): RateLimitBucket {
  return MEDIA_TYPES.has(record.type) || MEDIA_ROUTE.test(record.route) ? "media" : "messages";
}

/** What every resend of a run shares. */
export interface ResendTask {
  service: RetryService;
  store: GatewayStore;
  now: () => number;
  signal: AbortSignal | undefined;
  claimMs: number;
  claims: IdempotencyClaims;
}

/** The idempotency key a resend holds, settled once the resend is done. */
type HeldKey = { scope: IdempotencyScope; version: string } | undefined;

/**
 * Resend one failed record; its result says what happened. The record is claimed before its key and
 * settled after it, so the record shows a send that may have started for as long as the key does: a run
 * killed anywhere in between leaves a `pending` record, which a later run expires, looks up on the server
 * (releasing the key when the server does not have the message) and then resends.
 */
export async function resend(record: OutboundMessageRecord, task: ResendTask): Promise<RetryRecordResult> {
  const { store, now } = task;
  const claimedUntil = now() + task.claimMs;
  const claimed = await store.updateOutbound(
    record.id,
    { status: "pending", retryCount: record.retryCount + 1, claimedUntil, updatedAt: now() },
    record.updatedAt,
  );
  if (claimed === null) return skipped(record, "claimed_elsewhere");
  let held: HeldKey | RetryRecordResult;
  try {
    held = await holdKey(record, claimed, task, claimedUntil);
  } catch (error) {
    // Nothing was sent: the record goes back as it was. A key reused for another body holds only this record
    // back (until the key's window ends); anything else (the state failing) ends the run.
    await finish(store, claimed, { ...giveBack(record), updatedAt: now() });
    if (!(error instanceof ValidationException)) throw error;
    return { ...skipped(record, "key_reused"), error: error.message };
  }
  if (held !== undefined && "status" in held) return held;
  const key: HeldKey = held;
  let data: unknown;
  try {
    const response = await task.service.getClient().request("POST", record.route, {
      body: record.body,
      instance: record.instance,
      connection: record.connection,
      idempotent: false,
      bucket: bucketFor(record),
      signal: task.signal,
      ...serverDelay(record.body),
    });
    data = response.data;
  } catch (error) {
    return await settleFailedResend(task, record, claimed, key, error);
  }
  const responseKey = (data as { key?: { id?: unknown } } | null)?.key;
  const messageId = typeof responseKey?.id === "string" ? responseKey.id : undefined;
  await settleKey(task, record, key, {
    state: "done",
    response: { status: 201, body: data },
    ...(messageId === undefined ? {} : { messageId }),
  });
  await finish(store, claimed, { status: "sent", messageId, claimedUntil: undefined, updatedAt: now() });
  announceSent(task.service, record, messageId, data);
  return { id: record.id, status: "sent", messageId, retryCount: claimed.retryCount };
}

/** The record's claim given back: failed again, its retry not counted. */
function giveBack(record: OutboundMessageRecord) {
  return { status: "failed", retryCount: record.retryCount, claimedUntil: undefined } as const;
}

function skipped(record: OutboundMessageRecord, reason: RetrySkipReason): RetryRecordResult {
  return { id: record.id, status: "skipped", reason, retryCount: record.retryCount };
}

/**
 * A keyed send also holds its key: the caller's later call with the key and this resend never both send.
 * Returns the key held (undefined for an unkeyed record), or the record's result when the key settles it;
 * then the record's claim is given back with the outcome the key told.
 */
async function holdKey(
  record: OutboundMessageRecord,
  claimed: OutboundMessageRecord,
  task: ResendTask,
  claimedUntil: number,
): Promise<HeldKey | RetryRecordResult> {
  const scope = recordKeyScope(record);
  if (scope === undefined) return undefined;
  const { store, now, claims } = task;
  const acquired = await claims.acquire(scope, {
    fingerprint: sendFingerprint(record.route, record.body),
    recordId: record.id,
    claimedUntil,
  });
  if (acquired.kind === "done") {
    // The key's send happened (this record's, or a later call's): it is settled, never resent.
    const { messageId } = acquired.claim;
    await finish(store, claimed, { ...giveBack(record), status: "sent", messageId, updatedAt: now() });
    return { id: record.id, status: "reconciled", messageId, retryCount: record.retryCount };
  }
  if (acquired.kind === "unknown") {
    // A key left unknown, even by this record's own earlier send: only a lookup on the server may settle it.
    await finish(store, claimed, { ...giveBack(record), outcomeUnknown: true, updatedAt: now() });
    return skipped(record, "outcome_unknown");
  }
  if (acquired.kind === "owner" && acquired.claim.recordId === record.id) {
    return { scope, version: acquired.version };
  }
  if (acquired.kind === "owner") await claims.settle(scope, acquired.version, { state: "released" });
  await finish(store, claimed, { ...giveBack(record), updatedAt: now() });
  return skipped(record, "claimed_elsewhere");
}

async function settleKey(
  task: ResendTask,
  record: OutboundMessageRecord,
  key: HeldKey,
  outcome: Parameters<IdempotencyClaims["settle"]>[2],
): Promise<void> {
  if (key === undefined) return;
  try {
    await task.claims.settle(key.scope, key.version, outcome);
  } catch (error) {
    // Left in flight, it reads as unknown after `claimedUntil`: never a second send.
    log.warn("Cannot settle the idempotency key of {id}: {error}", {
      id: record.id,
      error: errorMessage(error),
    });
  }
}

/**
 * The resend threw: free the key (unknown when the send may have gone out), then record the failure, in
 * that order for the reason `resend` gives.
 */
async function settleFailedResend(
  task: ResendTask,
  record: OutboundMessageRecord,
  claimed: OutboundMessageRecord,
  key: HeldKey,
  error: unknown,
): Promise<RetryRecordResult> {
  const unknown = isOutcomeUnknown(error);
  const lastError = errorMessage(error);
  await settleKey(task, record, key, { state: unknown ? "unknown" : "released" });
  await finish(task.store, claimed, {
    status: "failed",
    lastError,
    outcomeUnknown: unknown,
    claimedUntil: undefined,
    ...(isPermanentFailure(error) ? { permanent: true } : {}),
    updatedAt: task.now(),
  });
  log.warn("Resend of {id} failed: {error}", { id: record.id, error: lastError });
  return { id: record.id, status: "failed", error: lastError, retryCount: claimed.retryCount };
}

/** Count the send and tell the service's listeners, as a first send does. */
function announceSent(
  service: RetryService,
  record: OutboundMessageRecord,
  messageId: string | undefined,
  data: unknown,
): void {
  service.getMetrics?.().messageSent(record.type);
  service.events?.dispatchEvent(
    new MessageSent({
      messageId: messageId ?? null,
      instance: record.instance,
      connection: record.connection,
      to: record.recipient,
      messageType: record.type,
      response: data,
    }),
  );
}

/** Record the outcome; a store failure here must not hide that the message went out (or did not). */
async function finish(
  store: GatewayStore,
  claimed: OutboundMessageRecord,
  changes: Partial<Omit<OutboundMessageRecord, "id" | "createdAt">>,
): Promise<void> {
  try {
    const saved = await store.updateOutbound(claimed.id, changes, claimed.updatedAt);
    if (saved === null) {
      log.warn("Cannot record the resend of {id}: the record changed meanwhile", { id: claimed.id });
    }
  } catch (error) {
    log.warn("Cannot record the resend of {id}: {error}", { id: claimed.id, error: errorMessage(error) });
  }
}

/** The send's typing `delay`, which the server waits out before answering. */
function serverDelay(body: unknown): { serverDelayMs?: number } {
  const delay = (body as { delay?: unknown } | null)?.delay;
  return typeof delay === "number" ? { serverDelayMs: delay } : {};
}
