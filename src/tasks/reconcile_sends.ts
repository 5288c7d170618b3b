/**
 * `reconcileSends`: settle sends whose outcome is unknown by looking for them on the gateway server, and
 * expire the claims of senders that died mid-send. Nothing stays `pending` for ever and nothing whose
 * send may have happened is resent before it was looked for.
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import { IdempotencyClaims, type IdempotencyScope, recordKeyScope } from "../store/idempotency.ts";
import type { GatewayStore, OutboundMessageRecord } from "../store/store.ts";
import { type FindMessagesClient, findSentMessage, type FoundMessage } from "./find_sent_message.ts";
import { scanOutbound } from "./outbound_scan.ts";
import { nonNegativeInteger } from "../util/checks.ts";
import { errorMessage } from "../util/error_message.ts";

/** The part of `GatewayService` reconcile uses: a `GatewayService` fits, and so does a test fake. */
export interface ReconcileService {
  /** The client that looks messages up. */
  getClient(): FindMessagesClient;
}

/** Options of {@link reconcileSends}. */
export interface ReconcileSendsOptions {
  /** Looks messages up on the server. */
  service: ReconcileService;
  /** Where the records are. */
  store: GatewayStore;
  /** Only records of this instance. */
  instance?: string;
  /** At most this many records looked up per run (default 100). */
  limit?: number;
  /**
   * Only records whose last attempt ended at least this long ago, in ms (default 60 000): a server still
   * working on a send that timed out here has not stored it yet.
   */
  minAgeMs?: number;
  /** Only report what would be looked up: nothing is changed and nothing is requested. */
  dryRun?: boolean;
  /** Stops the run before the next record. */
  signal?: AbortSignal;
  /** Called after each record. */
  onResult?: (result: ReconcileRecordResult) => void;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
}

/** Why a record could not be settled this time. */
export type ReconcileUndecidedReason = "too_recent" | "too_many_messages" | "lookup_failed" | "changed";

/** What happened to one record. */
export interface ReconcileRecordResult {
  /** The record's local id. */
  id: string;
  /**
   * `expired`: a `pending` record whose sender's claim ended, now outcome-unknown; `sent`: found on the
   * server (its id in `messageId`); `not_sent`: not found, now resendable; `undecided`: left unknown
   * (`reason`); `would_check` in a dry run.
   */
  status: "expired" | "sent" | "not_sent" | "undecided" | "would_check";
  /** The server's message id, when found. */
  messageId?: string;
  /** Why it stays unknown. */
  reason?: ReconcileUndecidedReason;
  /** The lookup's error, when it failed. */
  error?: string;
}

/** What {@link reconcileSends} did. */
export interface ReconcileSendsResult {
  /** Pending records whose claim had ended, now outcome-unknown. */
  expired: number;
  /** Records looked up on the server. */
  checked: number;
  /** Found on the server: settled as sent. */
  sent: number;
  /** Not found: settled as not sent, so `retryFailedMessages` may resend them. */
  notSent: number;
  /** Left outcome-unknown for a later run. */
  undecided: number;
  /** Whether this was a dry run. */
  dryRun: boolean;
  /** One entry per record, expired ones first, then oldest first. */
  results: ReconcileRecordResult[];
}

/** A `pending` record without `claimedUntil` (written before claims expired) is stale after this long. */
export const LEGACY_PENDING_STALE_MS = 15 * 60_000;
/** How far the looked-up window reaches before the first attempt and after the last (clock skew). */
const WINDOW_MARGIN_MS = 5 * 60_000;
const DEFAULT_MIN_AGE_MS = 60_000;
const log = getGatewayLogger("tasks", "reconcile-sends");

/**
 * Mark every `pending` record whose claim has ended (`claimedUntil` passed: its sender died mid-send) as
 * failed with an unknown outcome, so that it is looked for before anything resends it. Returns the
 * records changed.
 */
export async function expireStaleClaims(
  store: GatewayStore,
  options: { now?: () => number; instance?: string; signal?: AbortSignal } = {},
): Promise<OutboundMessageRecord[]> {
  const now = options.now ?? Date.now;
  const expired: OutboundMessageRecord[] = [];
  const pending = scanOutbound(store, {
    status: "pending",
    instance: options.instance,
    signal: options.signal,
  });
  for await (const record of pending) {
    const until = record.claimedUntil ?? record.updatedAt + LEGACY_PENDING_STALE_MS;
    if (until > now()) continue;
    const changed = await store.updateOutbound(record.id, {
      status: "failed",
      outcomeUnknown: true,
      claimedUntil: undefined,
      lastError: `Sender stopped mid-send: its claim ended at ${new Date(until).toISOString()}`,
      updatedAt: now(),
    }, record.updatedAt);
    if (changed !== null) expired.push(changed);
  }
  if (expired.length > 0) {
    log.warn("{count} pending send(s) had an expired claim and are now outcome-unknown", {
      count: expired.length,
    });
  }
  return expired;
}

/** What reconcile needs for one record. */
export interface ReconcileContext {
  /** Looks messages up. */
  client: FindMessagesClient;
  /** The records. */
  store: GatewayStore;
  /** Clock in epoch ms. */
  now: () => number;
  /** See {@link ReconcileSendsOptions.minAgeMs}. */
  minAgeMs?: number;
  /** Stops the lookup. */
  signal?: AbortSignal;
}

/** Message ids already credited to sent records of the instance in the window: one message settles one record. */
async function takenIds(store: GatewayStore, record: OutboundMessageRecord, from: number, to: number) {
  const taken = new Set<string>();
  const sent = await store.listOutbound({
    instance: record.instance,
    status: "sent",
    startAfter: { createdAt: from - 1, id: "\u{10FFFF}" },
    createdBefore: to,
    limit: 1000,
  });
  for (const other of sent) {
    if (other.messageId !== undefined && other.id !== record.id) taken.add(other.messageId);
  }
  return taken;
}

/** The answer a later call with the record's key replays: the message as the server stored it. */
function responseOf(message: FoundMessage): { status: number; body: unknown } {
  const { key, pushName, message: content, messageType, messageTimestamp, instanceId, source } = message;
  return {
    status: 201,
    body: { key, pushName, message: content, messageType, messageTimestamp, instanceId, source },
  };
}

/** The record settled as sent from its idempotency key's answer, without a lookup. */
async function settleFromKey(
  record: OutboundMessageRecord,
  messageId: string | undefined,
  { store, now }: ReconcileContext,
): Promise<ReconcileRecordResult> {
  const sent = { status: "sent" as const, messageId, outcomeUnknown: false, lastError: undefined };
  if (await store.updateOutbound(record.id, { ...sent, updatedAt: now() }, record.updatedAt) === null) {
    return { id: record.id, status: "undecided", reason: "changed" };
  }
  log.info("Reconciled send {id}: sent (its idempotency key holds the answer)", { id: record.id });
  return { id: record.id, status: "sent", ...(messageId ? { messageId } : {}) };
}

/**
 * The record's idempotency key after the lookup: `done` with the message found (a later call replays it),
 * else released. Read again first: the key may have changed during the lookup.
 */
async function settleKey(
  claims: IdempotencyClaims,
  scope: IdempotencyScope,
  record: OutboundMessageRecord,
  found: FoundMessage | undefined,
): Promise<void> {
  const claim = await claims.read(scope);
  if (claim === null || claim.value.recordId !== record.id || claim.value.state !== "unknown") return;
  const messageId = found?.key.id;
  await claims.settle(
    scope,
    claim.version,
    found !== undefined
      ? { state: "done", response: responseOf(found), ...(messageId ? { messageId } : {}) }
      : { state: "released" },
  );
}

/**
 * Settle one failed record whose outcome is unknown: its idempotency key `done` for it → `sent` with the
 * key's message id, without a lookup; else found on the server → `sent` with the real message
 * id (and its idempotency key, if any, replays that message); not found → still `failed` but no longer
 * unknown, so it may be resent (and its key may send again); otherwise left as it is (`undecided`).
 */
export async function reconcileRecord(
  record: OutboundMessageRecord,
  context: ReconcileContext,
): Promise<ReconcileRecordResult> {
  const { store, now } = context;
  const scope = recordKeyScope(record);
  const claims = new IdempotencyClaims(store.state, { now });
  const held = scope === undefined ? undefined : (await claims.read(scope))?.value;
  if (held?.state === "done" && held.recordId === record.id) {
    // The key says the send happened (a resend settles the key before the record; a later call's send with
    // the key counts too): no lookup needed.
    return await settleFromKey(record, held.messageId, context);
  }
  if (now() - record.updatedAt < (context.minAgeMs ?? DEFAULT_MIN_AGE_MS)) {
    return { id: record.id, status: "undecided", reason: "too_recent" };
  }
  const from = record.createdAt - WINDOW_MARGIN_MS;
  const to = record.updatedAt + WINDOW_MARGIN_MS;
  let found;
  try {
    found = await findSentMessage(context.client, record, {
      from,
      to,
      taken: await takenIds(store, record, from, to),
      signal: context.signal,
    });
  } catch (error) {
    if (context.signal?.aborted) throw error;
    log.warn("Cannot look up send {id}: {error}", { id: record.id, error: errorMessage(error) });
    return { id: record.id, status: "undecided", reason: "lookup_failed", error: errorMessage(error) };
  }
  if (!found.found && !found.complete) {
    return { id: record.id, status: "undecided", reason: "too_many_messages" };
  }
  const messageId = found.found ? found.message.key.id : undefined;
  const settled = await store.updateOutbound(
    record.id,
    found.found
      ? { status: "sent", messageId, outcomeUnknown: false, lastError: undefined, updatedAt: now() }
      : {
        outcomeUnknown: false,
        lastError: `Not found on the server when reconciled (${new Date(now()).toISOString()})`,
        updatedAt: now(),
      },
    record.updatedAt,
  );
  if (settled === null) return { id: record.id, status: "undecided", reason: "changed" };
  if (scope !== undefined) {
    await settleKey(claims, scope, record, found.found ? found.message : undefined);
  }
  log.info("Reconciled send {id}: {outcome}", { id: record.id, outcome: found.found ? "sent" : "not sent" });
  return found.found
    ? { id: record.id, status: "sent", ...(messageId ? { messageId } : {}) }
    : { id: record.id, status: "not_sent" };
}

/**
 * Settle sends whose outcome is unknown. First, every `pending` record whose sender's claim ended
 * (`claimedUntil` passed: the process died mid-send) becomes outcome-unknown. Then each failed record
 * with an unknown outcome, oldest first, is looked for on the server (`POST /chat/findMessages` with
 * `fromMe`, the recipient, a window around its attempts, and its content): found, it is settled as sent
 * with the real message id; not found, it is settled as not sent and `retryFailedMessages` may resend
 * it. The server must store sent messages (`DATABASE_SAVE_DATA_NEW_MESSAGE=true`, its default).
 *
 * @example From a scheduled job
 * ```ts
 * import { GatewayService, KvStore } from "@gw/gateway";
 * import { reconcileSends } from "@gw/gateway/tasks";
 * const kv = await Deno.openKv(":memory:");
 * const store = new KvStore(kv);
 * const service = GatewayService.make({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
 * const result = await reconcileSends({ service, store });
 * console.log(result.expired, result.sent, result.notSent, result.undecided);
 * kv.close();
 * ```
 */
export async function reconcileSends(options: ReconcileSendsOptions): Promise<ReconcileSendsResult> {
  const limit = nonNegativeInteger("Cannot reconcile sends", "limit", options.limit, 100);
  const minAgeMs = nonNegativeInteger(
    "Cannot reconcile sends",
    "minAgeMs",
    options.minAgeMs,
    DEFAULT_MIN_AGE_MS,
  );
  const { store, signal } = options;
  const now = options.now ?? Date.now;
  const dryRun = options.dryRun === true;
  const result: ReconcileSendsResult = {
    expired: 0,
    checked: 0,
    sent: 0,
    notSent: 0,
    undecided: 0,
    dryRun,
    results: [],
  };
  const report = (entry: ReconcileRecordResult) => {
    result.results.push(entry);
    if (entry.status === "expired") result.expired++;
    if (entry.status === "sent") result.sent++;
    if (entry.status === "not_sent") result.notSent++;
    if (entry.status === "undecided") result.undecided++;
    options.onResult?.(entry);
  };
  if (!dryRun) {
    for (const record of await expireStaleClaims(store, { now, instance: options.instance, signal })) {
      report({ id: record.id, status: "expired" });
    }
  }
  const client = options.service.getClient();
  for await (const record of scanOutbound(store, { status: "failed", instance: options.instance, signal })) {
    if (result.checked >= limit || signal?.aborted) break;
    if (!record.outcomeUnknown || record.permanent === true) continue;
    result.checked++;
    if (dryRun) report({ id: record.id, status: "would_check" });
    else report(await reconcileRecord(record, { client, store, now, minAgeMs, signal }));
  }
  log.info(
    "Reconciled sends{dry}: {expired} expired, {sent} sent, {notSent} not sent, {undecided} undecided",
    {
      dry: dryRun ? " (dry run)" : "",
      ...result,
      results: undefined,
    },
  );
  return result;
}
