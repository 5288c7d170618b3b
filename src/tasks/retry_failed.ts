/**
 * `retryFailedMessages`: resend failed sends oldest first, each claimed so no two runs resend one record.
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import { IdempotencyClaims } from "../store/idempotency.ts";
import type { OutboundMessageRecord } from "../store/store.ts";
import { nonNegativeInteger } from "../util/checks.ts";
import { scanOutbound } from "./outbound_scan.ts";
import { expireStaleClaims, reconcileRecord } from "./reconcile_sends.ts";
import { resend, type ResendTask } from "./resend.ts";
import type { RetryFailedOptions, RetryFailedResult, RetryRecordResult } from "./retry_failed_types.ts";

export type * from "./retry_failed_types.ts";

const WHERE = "Cannot retry failed messages";

/** The default of {@link RetryFailedOptions.claimMs}: 15 minutes. */
export const DEFAULT_RETRY_CLAIM_MS = 15 * 60_000;

const log = getGatewayLogger("tasks", "retry-failed");

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
 * const service = GatewayService.make({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
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
      const looked = await lookOnServerFirst(record, task, options.reconcileMinAgeMs);
      if (!("route" in looked)) {
        report(looked);
        continue;
      }
      record = looked;
    }
    report(skipReason(record, maxRetries, dryRun) ?? await resend(record, task));
  }
  log.info(
    "Retried failed messages{dry}: {attempted} attempted, {sent} sent, {failed} failed, {reconciled} reconciled, {skipped} skipped",
    { dry: dryRun ? " (dry run)" : "", ...result, results: undefined },
  );
  return result;
}

/**
 * A record whose send may have been delivered: never resent before it is looked for on the server.
 * Returns its result when that settles it, or the fresh record when the server says it was not sent.
 */
async function lookOnServerFirst(
  record: OutboundMessageRecord,
  task: ResendTask,
  minAgeMs: number | undefined,
): Promise<RetryRecordResult | OutboundMessageRecord> {
  const { store, now, signal } = task;
  const settled = await reconcileRecord(record, {
    client: task.service.getClient(),
    store,
    now,
    minAgeMs,
    signal,
  });
  if (settled.status === "sent") {
    return {
      id: record.id,
      status: "reconciled",
      messageId: settled.messageId,
      retryCount: record.retryCount,
    };
  }
  const fresh = settled.status === "not_sent" ? await store.getOutbound(record.id) : null;
  if (fresh === null || fresh.status !== "failed" || fresh.outcomeUnknown) {
    return { id: record.id, status: "skipped", reason: "outcome_unknown", retryCount: record.retryCount };
  }
  return fresh;
}

/** Why a record is not resent now (or `would_retry` in a dry run); undefined when it is to be resent. */
function skipReason(
  record: OutboundMessageRecord,
  maxRetries: number,
  dryRun: boolean,
): RetryRecordResult | undefined {
  const { id, retryCount } = record;
  if (record.outcomeUnknown) return { id, status: "skipped", reason: "outcome_unknown", retryCount };
  if (record.permanent === true) return { id, status: "skipped", reason: "permanent", retryCount };
  if (retryCount >= maxRetries) return { id, status: "skipped", reason: "max_retries", retryCount };
  if (dryRun) return { id, status: "would_retry", retryCount };
  return undefined;
}
