/**
 * `retryFailedMessages`: resend failed message sends from the store, oldest first, each claimed
 * atomically so that two runs at the same time never resend the same record.
 *
 * @module
 */

import { isOutcomeUnknown, isPermanentFailure } from "../send/outcome.ts";
import { MessageSent } from "../events.ts";
import { getGatewayLogger } from "../log.ts";
import type { RequestOptions } from "../client/client.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import { IdempotencyClaims, type IdempotencyScope, sendFingerprint } from "../store/idempotency.ts";
import type { GatewayStore, OutboundMessageRecord } from "../store/store.ts";
import { nonNegativeInteger } from "../util/checks.ts";
import { scanOutbound } from "./outbound_scan.ts";
import { expireStaleClaims, reconcileRecord } from "./reconcile_sends.ts";
import { errorMessage } from "../util/error_message.ts";

const WHERE = "Cannot retry failed messages";

/** The part of `GatewayService` the task uses: a `GatewayService` fits, and so does a test fake. */
export interface RetryService {
  /**
   * The client that sends: the task calls `request("POST", route, { body, instance, connection, bucket,
   * idempotent: false, serverDelayMs })` with the record's original body (a message send is never repeated
   * by the client).
   */
  getClient(): {
    request(method: "POST", route: string, options: RequestOptions): Promise<{ data: unknown }>;
  };
  /** When present, `MessageSent` is dispatched on it for every message the task sends. */
  readonly events?: EventTarget;
  /** When present, every message the task sends is counted. */
  getMetrics?(): { messageSent(type: string): void };
}

/** Options of {@link retryFailedMessages}. */
export interface RetryFailedOptions {
  /** Sends the messages. */
  service: RetryService;
  /** Where the failed records are. */
  store: GatewayStore;
  /** Records already resent this many times are skipped (default 3). */
  maxRetries?: number;
  /** At most this many resends per run (default 100); skipped records do not count. */
  limit?: number;
  /** Only records of this instance. */
  instance?: string;
  /** Only report what would be resent: nothing is claimed, looked up or sent. */
  dryRun?: boolean;
  /**
   * How long a resend holds its record (`claimedUntil`), in ms (default 15 minutes): longer than a send
   * may take (`http.deadline_ms` plus the typing delay). A record still `pending` after it is settled as
   * outcome-unknown by the next run.
   */
  claimMs?: number;
  /** A record whose outcome is unknown is looked up only once its last attempt is this old (default 60 000). */
  reconcileMinAgeMs?: number;
  /** Stops the run before the next record (the one in flight finishes). */
  signal?: AbortSignal;
  /** Called after each record, e.g. for a progress bar. */
  onResult?: (result: RetryRecordResult) => void;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
}

/** Why a record was skipped. */
export type RetrySkipReason = "outcome_unknown" | "max_retries" | "permanent" | "claimed_elsewhere";

/** The default of {@link RetryFailedOptions.claimMs}: 15 minutes. */
export const DEFAULT_RETRY_CLAIM_MS = 15 * 60_000;

/** What happened to one record. */
export interface RetryRecordResult {
  /** The record's local id. */
  id: string;
  /**
   * `sent`, `failed` (again), `skipped`, `reconciled` (its outcome was unknown and it was found on the
   * server: settled as sent, not resent), or in a dry run `would_retry`.
   */
  status: "sent" | "failed" | "skipped" | "reconciled" | "would_retry";
  /** The error of a failed resend. */
  error?: string;
  /** Why it was skipped. */
  reason?: RetrySkipReason;
  /** The server's message id of a sent record. */
  messageId?: string;
  /** The record's retry count after this run. */
  retryCount: number;
}

/** What {@link retryFailedMessages} did. */
export interface RetryFailedResult {
  /** Resends made (in a dry run: resends that would be made). */
  attempted: number;
  /** Resends that succeeded. */
  sent: number;
  /** Resends that failed again. */
  failed: number;
  /** Records with an unknown outcome found on the server: settled as sent without a resend. */
  reconciled: number;
  /** Records left alone (outcome still unknown, retries used up, or claimed by another run). */
  skipped: number;
  /** Whether this was a dry run. */
  dryRun: boolean;
  /** One entry per record looked at, oldest first. */
  results: RetryRecordResult[];
}

const MEDIA_TYPES = new Set(["media", "image", "video", "document", "audio", "ptv", "sticker"]);
const MEDIA_ROUTE = /\/message\/send(Media|WhatsAppAudio|Ptv|Sticker)\//;
const log = getGatewayLogger("tasks", "retry-failed");

function bucketFor(record: OutboundMessageRecord): RateLimitBucket {
  return MEDIA_TYPES.has(record.type) || MEDIA_ROUTE.test(record.route) ? "media" : "messages";
}

/**
 * Resend failed messages with their original body through the normal client path, oldest first.
 *
 * A run first settles what earlier runs and sends left behind: a `pending` record whose claim ended (its
 * sender died mid-send) becomes outcome-unknown, and a record whose outcome is unknown is looked for on
 * the server (see `reconcileSends`): found, it is settled as sent (`reconciled`) and never resent; not
 * found, it is resent like any failed record; when the lookup cannot decide, it is skipped.
 *
 * Each resend first claims its record with a compare-and-set that moves it from `failed` to `pending`
 * (with `claimedUntil`) and increments its retry count, so a concurrent run cannot resend it too; a
 * record sent with an idempotency key also takes that key's claim, so a caller's later call with the key
 * and the task never both send. It then ends `sent` (with the server's `key.id`) or `failed` again (with
 * the error; `outcomeUnknown` when the resend may have reached the server). Records resent `maxRetries`
 * times, and permanent failures, are skipped.
 *
 * @example Retry from a scheduled job
 * ```ts
 * import { GatewayService, KvStore } from "@gw/gateway";
 * import { retryFailedMessages } from "@gw/gateway/tasks";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvStore(kv);
 * const service = new GatewayService({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
 * const result = await retryFailedMessages({ service, store, maxRetries: 3, limit: 50 });
 * console.log(result.attempted, result.sent, result.failed, result.skipped);
 * kv.close();
 * ```
 *
 * @example A dry run for one instance
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * import { retryFailedMessages, type RetryService } from "@gw/gateway/tasks";
 * const service: RetryService = { getClient: () => ({ request: () => Promise.resolve({ data: {} }) }) };
 * const result = await retryFailedMessages({ service, store: new MemoryStore(), instance: "sales", dryRun: true });
 * console.log(result.results);
 * ```
 */
export async function retryFailedMessages(options: RetryFailedOptions): Promise<RetryFailedResult> {
  const maxRetries = nonNegativeInteger(WHERE, "maxRetries", options.maxRetries, 3);
  const limit = nonNegativeInteger(WHERE, "limit", options.limit, 100);
  const { store, service, signal } = options;
  const now = options.now ?? Date.now;
  const dryRun = options.dryRun === true;
  const claimMs = nonNegativeInteger(WHERE, "claimMs", options.claimMs, DEFAULT_RETRY_CLAIM_MS);
  const result: RetryFailedResult = {
    attempted: 0,
    sent: 0,
    failed: 0,
    reconciled: 0,
    skipped: 0,
    dryRun,
    results: [],
  };
  const report = (entry: RetryRecordResult) => {
    result.results.push(entry);
    if (entry.status === "skipped") result.skipped++;
    else if (entry.status === "reconciled") result.reconciled++;
    else result.attempted++;
    if (entry.status === "sent") result.sent++;
    if (entry.status === "failed") result.failed++;
    options.onResult?.(entry);
  };

  const task: ResendTask = {
    service,
    store,
    now,
    signal,
    claimMs,
    claims: new IdempotencyClaims(store.state, { now }),
  };
  if (!dryRun) await expireStaleClaims(store, { now, instance: options.instance, signal });
  for await (let record of scanOutbound(store, { status: "failed", instance: options.instance, signal })) {
    if (result.attempted >= limit || signal?.aborted) break;
    if (record.outcomeUnknown && record.permanent !== true && !dryRun) {
      // Never resend what may have been delivered before looking for it on the server.
      const settled = await reconcileRecord(record, {
        client: service.getClient(),
        store,
        now,
        minAgeMs: options.reconcileMinAgeMs,
        signal,
      });
      if (settled.status === "sent") {
        report({
          id: record.id,
          status: "reconciled",
          messageId: settled.messageId,
          retryCount: record.retryCount,
        });
        continue;
      }
      const fresh = settled.status === "not_sent" ? await store.getOutbound(record.id) : null;
      if (fresh === null || fresh.status !== "failed" || fresh.outcomeUnknown) {
        report({
          id: record.id,
          status: "skipped",
          reason: "outcome_unknown",
          retryCount: record.retryCount,
        });
        continue;
      }
      record = fresh;
    }
    if (record.outcomeUnknown) {
      report({
        id: record.id,
        status: "skipped",
        reason: "outcome_unknown",
        retryCount: record.retryCount,
      });
    } else if (record.permanent === true) {
      report({ id: record.id, status: "skipped", reason: "permanent", retryCount: record.retryCount });
    } else if (record.retryCount >= maxRetries) {
      report({ id: record.id, status: "skipped", reason: "max_retries", retryCount: record.retryCount });
    } else if (dryRun) {
      report({ id: record.id, status: "would_retry", retryCount: record.retryCount });
    } else {
      report(await resend(record, task));
    }
  }
  log.info(
    "Retried failed messages{dry}: {attempted} attempted, {sent} sent, {failed} failed, {reconciled} reconciled, {skipped} skipped",
    { dry: dryRun ? " (dry run)" : "", ...result, results: undefined },
  );
  return result;
}

interface ResendTask {
  service: RetryService;
  store: GatewayStore;
  now: () => number;
  signal: AbortSignal | undefined;
  claimMs: number;
  claims: IdempotencyClaims;
}

async function resend(record: OutboundMessageRecord, task: ResendTask): Promise<RetryRecordResult> {
  const { service, store, now, signal, claims } = task;
  const claimedUntil = now() + task.claimMs;
  const skipped = (reason: RetrySkipReason): RetryRecordResult => ({
    id: record.id,
    status: "skipped",
    reason,
    retryCount: record.retryCount,
  });
  // A keyed send also holds its key: the caller's later call with the key and this resend never both send.
  let key: { scope: IdempotencyScope; version: string } | undefined;
  if (record.idempotencyKey !== undefined) {
    const scope = { connection: record.connection, instance: record.instance, key: record.idempotencyKey };
    const acquired = await claims.acquire(scope, {
      fingerprint: await sendFingerprint(record.route, record.body),
      recordId: record.id,
      claimedUntil,
    });
    if (acquired.kind === "done") {
      // The key's send happened (this record's, or a later call's): it is settled, never resent.
      await finish(store, record, { status: "sent", messageId: acquired.claim.messageId, updatedAt: now() });
      return {
        id: record.id,
        status: "reconciled",
        messageId: acquired.claim.messageId,
        retryCount: record.retryCount,
      };
    }
    if (acquired.kind === "unknown") {
      await finish(store, record, { outcomeUnknown: true, updatedAt: now() });
      return skipped("outcome_unknown");
    }
    if (acquired.kind === "in_flight") return skipped("claimed_elsewhere");
    if (acquired.claim.recordId !== record.id) {
      await claims.settle(scope, acquired.version, { state: "released" });
      return skipped("claimed_elsewhere");
    }
    key = { scope, version: acquired.version };
  }
  const settleKey = async (outcome: Parameters<IdempotencyClaims["settle"]>[2]) => {
    if (key === undefined) return;
    try {
      await claims.settle(key.scope, key.version, outcome);
    } catch (error) {
      // Left in flight, it reads as unknown after `claimedUntil`: never a second send.
      log.warn("Cannot settle the idempotency key of {id}: {error}", {
        id: record.id,
        error: errorMessage(error),
      });
    }
  };
  const claimed = await store.updateOutbound(
    record.id,
    { status: "pending", retryCount: record.retryCount + 1, claimedUntil, updatedAt: now() },
    record.updatedAt,
  );
  if (claimed === null) {
    await settleKey({ state: "released" });
    return skipped("claimed_elsewhere");
  }
  let data: unknown;
  try {
    const response = await service.getClient().request("POST", record.route, {
      body: record.body,
      instance: record.instance,
      connection: record.connection,
      idempotent: false,
      bucket: bucketFor(record),
      signal,
      ...serverDelay(record.body),
    });
    data = response.data;
  } catch (error) {
    const unknown = isOutcomeUnknown(error);
    const lastError = errorMessage(error);
    await finish(store, claimed, {
      status: "failed",
      lastError,
      outcomeUnknown: unknown,
      claimedUntil: undefined,
      ...(isPermanentFailure(error) ? { permanent: true } : {}),
      updatedAt: now(),
    });
    await settleKey({ state: unknown ? "unknown" : "released" });
    log.warn("Resend of {id} failed: {error}", { id: record.id, error: lastError });
    return { id: record.id, status: "failed", error: lastError, retryCount: claimed.retryCount };
  }
  const responseKey = (data as { key?: { id?: unknown } } | null)?.key;
  const messageId = typeof responseKey?.id === "string" ? responseKey.id : undefined;
  await finish(store, claimed, { status: "sent", messageId, claimedUntil: undefined, updatedAt: now() });
  await settleKey({
    state: "done",
    response: { status: 201, body: data },
    ...(messageId === undefined ? {} : { messageId }),
  });
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
  return { id: record.id, status: "sent", messageId, retryCount: claimed.retryCount };
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
