/**
 * The send pipeline every message send goes through: the idempotency claim (when the call has a key), the
 * outbound record (when a store is configured), the request (never repeated when its outcome is unknown),
 * and the `MessageSent` event.
 *
 * @module
 */

import type { GatewayClient } from "../client/client.ts";
import { ApiResponse } from "../client/response.ts";
import { isOutcomeUnknown, isPermanentFailure } from "../errors.ts";
import { MessageSent } from "../events.ts";
import { getGatewayLogger } from "../log.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket } from "../ratelimit/limiter.ts";
import {
  checkIdempotencyKey,
  type IdempotencyClaim,
  type IdempotencyClaims,
  type IdempotencyScope,
  sendFingerprint,
} from "../store/idempotency.ts";
import type { GatewayStore, OutboundMessageRecord } from "../store/store.ts";
import { guardSend, settleSend } from "../health/send_guard.ts";
import type { InstanceHealth, InstanceRef } from "../health/instance_health.ts";

/** What the pipeline needs from the resource's context. */
export interface SendContext {
  /** The request pipeline. */
  client: GatewayClient;
  /** Where `MessageSent` is dispatched. */
  events: EventTarget;
  /** Metrics collector. */
  metrics: MetricsCollector;
  /** Where sends are recorded, when configured. */
  store?: GatewayStore;
  /** Idempotency claims: on `store.state`, or the service's own memory when there is no store. */
  idempotency: IdempotencyClaims;
  /** A send's overall deadline in ms (`http.deadline_ms`), which also bounds its claim. */
  deadlineMs: number;
  /** Clock in epoch ms. */
  now: () => number;
  /** Instance health and the send breaker, when the service keeps them. */
  health?: InstanceHealth;
  /** Asks the server for an instance's state (the breaker's half-open probe for a banned or logged-out one). */
  pollState: (ref: InstanceRef, signal?: AbortSignal) => Promise<void>;
}

/** One send, resolved: where it goes and what it carries. */
export interface ResolvedSend {
  /** Route template. */
  route: string;
  /** Message kind. */
  type: string;
  /** JSON body. */
  body: Record<string, unknown>;
  /** Recipient as given. */
  to: string;
  /** Rate-limit bucket. */
  bucket: RateLimitBucket;
  /** Connection name. */
  connection: string;
  /** Instance name. */
  instance: string;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** Retries of attempts the server did not act on. */
  maxRetries?: number;
  /** The caller's idempotency key. */
  idempotencyKey?: string;
}

/** Time after the request's deadline for the pipeline to record its outcome before the claim ends. */
export const CLAIM_SLACK_MS = 30_000;

/** The header a replayed answer carries (the name Stripe uses). */
export const REPLAYED_HEADER = "idempotent-replayed";

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

/** The typing delay the server waits out before answering. */
function serverDelayOf(body: Record<string, unknown>): number {
  return typeof body.delay === "number" && body.delay > 0 ? body.delay : 0;
}

/** Rebuild the first call's answer for a later call with the same key. */
function replay<T>(claim: IdempotencyClaim): ApiResponse<T> {
  const response = claim.response ?? { status: 201, body: null };
  const headers = new Headers({ [REPLAYED_HEADER]: "true" });
  return new ApiResponse<T>(response.status, headers, response.body as T, 0, 0, { replayed: true });
}

/**
 * Send one message. With an idempotency key, the send happens at most once per (connection, instance,
 * key) within the claims' window: a later call replays the first answer, waits while it is in flight,
 * and is refused while its outcome is unknown.
 */
export async function sendMessage<T>(context: SendContext, send: ResolvedSend): Promise<ApiResponse<T>> {
  if (send.idempotencyKey === undefined) {
    return await deliver<T>(context, send, { recordId: crypto.randomUUID(), reuse: false });
  }
  checkIdempotencyKey(send.idempotencyKey);
  const scope: IdempotencyScope = {
    connection: send.connection,
    instance: send.instance,
    key: send.idempotencyKey,
  };
  const started = context.now();
  const deadlineAt = started + serverDelayOf(send.body) + context.deadlineMs;
  const acquired = await context.idempotency.acquire(scope, {
    fingerprint: await sendFingerprint(send.route, send.body),
    recordId: crypto.randomUUID(),
    claimedUntil: deadlineAt + CLAIM_SLACK_MS,
  }, {
    deadlineAt,
    signal: send.signal,
    sleep: (ms, signal) => context.client.sleep(ms, signal),
  });
  if (acquired.kind === "done") return replay<T>(acquired.claim);
  if (acquired.kind !== "owner") throw new Error(`Unexpected idempotency claim state "${acquired.kind}"`);
  const { claim, version } = acquired;
  const settle = async (outcome: Parameters<IdempotencyClaims["settle"]>[2]) => {
    try {
      if (await context.idempotency.settle(scope, version, outcome) === null) {
        log.warn("Cannot settle idempotency key {key}: the claim changed meanwhile", { key: scope.key });
      }
    } catch (error) {
      // The claim stays in flight until its `claimedUntil`, then reads as unknown: never a second send.
      log.warn("Cannot settle idempotency key {key}: {error}", { key: scope.key, error: String(error) });
    }
  };
  let response: ApiResponse<T>;
  try {
    response = await deliver<T>(context, send, {
      recordId: claim.recordId,
      reuse: acquired.previous !== undefined,
      claimedUntil: claim.claimedUntil,
    });
  } catch (error) {
    await settle({ state: isOutcomeUnknown(error) ? "unknown" : "released" });
    throw error;
  }
  const messageId = response.json<unknown>("key.id");
  await settle({
    state: "done",
    response: { status: response.status, body: response.data },
    ...(typeof messageId === "string" ? { messageId } : {}),
  });
  return response;
}

/** Record, send, record the outcome, count and announce. */
async function deliver<T>(
  context: SendContext,
  send: ResolvedSend,
  claim: { recordId: string; reuse: boolean; claimedUntil?: number },
): Promise<ApiResponse<T>> {
  const store = context.store;
  const ref = { connection: send.connection, instance: send.instance };
  // While the instance is known down the breaker refuses here, before any record or request: the caller gets
  // InstanceDisconnectedException (nothing was sent), and no failed record is left for the retry task to
  // send into the same down instance.
  await guardSend(context.health, ref, () => context.pollState(ref, send.signal));
  const delay = serverDelayOf(send.body);
  const claimedUntil = claim.claimedUntil ?? context.now() + delay + context.deadlineMs + CLAIM_SLACK_MS;
  const recorded = store ? await recordPending(store, context.now(), send, claim, claimedUntil) : false;
  let response: ApiResponse<T>;
  try {
    response = await context.client.request<T>("POST", send.route, {
      body: send.body,
      idempotent: false,
      bucket: send.bucket,
      connection: send.connection,
      instance: send.instance,
      signal: send.signal,
      timeoutMs: send.timeoutMs,
      deadlineMs: context.deadlineMs,
      maxRetries: send.maxRetries,
      idempotencyKey: send.idempotencyKey,
      serverDelayMs: typeof send.body.delay === "number" ? send.body.delay : undefined,
    });
  } catch (error) {
    await settleSend(context.health, ref, error);
    if (store && recorded) {
      await updateRecord(store, claim.recordId, {
        status: "failed",
        outcomeUnknown: isOutcomeUnknown(error),
        ...(isPermanentFailure(error) ? { permanent: true } : {}),
        lastError: error instanceof Error ? error.message : String(error),
        claimedUntil: undefined,
        updatedAt: context.now(),
      });
    }
    throw error;
  }
  await settleSend(context.health, ref);
  const messageId = response.json<unknown>("key.id");
  const id = typeof messageId === "string" ? messageId : null;
  if (store && recorded) {
    await updateRecord(store, claim.recordId, {
      status: "sent",
      messageId: id ?? undefined,
      claimedUntil: undefined,
      updatedAt: context.now(),
    });
  }
  context.metrics.messageSent(send.type);
  context.events.dispatchEvent(
    new MessageSent({
      messageId: id,
      instance: send.instance,
      connection: send.connection,
      to: send.to,
      messageType: send.type,
      response: response.data,
    }),
  );
  return response;
}

/**
 * Save the `pending` record (or, for a key whose earlier send was released, move that send's record back
 * to `pending`, so one key keeps one record). False when the store failed: the store is a record of sends,
 * not a gate on them, so the send goes ahead and the missing record is logged.
 */
async function recordPending(
  store: GatewayStore,
  now: number,
  send: ResolvedSend,
  claim: { recordId: string; reuse: boolean },
  claimedUntil: number,
): Promise<boolean> {
  try {
    if (claim.reuse) {
      const reused = await store.updateOutbound(claim.recordId, {
        status: "pending",
        outcomeUnknown: false,
        permanent: undefined,
        lastError: undefined,
        claimedUntil,
        updatedAt: now,
      });
      if (reused !== null) return true;
    }
    await store.saveOutbound({
      id: claim.recordId,
      connection: send.connection,
      instance: send.instance,
      recipient: send.to,
      type: send.type,
      route: send.route,
      body: send.body,
      status: "pending",
      outcomeUnknown: false,
      retryCount: 0,
      ...(send.idempotencyKey === undefined ? {} : { idempotencyKey: send.idempotencyKey }),
      claimedUntil,
      createdAt: now,
      updatedAt: now,
    });
    return true;
  } catch (error) {
    log.warn("Cannot record outbound message to {to}: {error}", { to: send.to, error: String(error) });
    return false;
  }
}
