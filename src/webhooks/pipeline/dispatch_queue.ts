/**
 * Stage "dispatch", queue mode: the verified webhook is written as a job before the answer (202), and a
 * worker runs the handlers later. Where the job goes is pluggable ({@link WebhookJobQueue}): a Deno KV queue
 * by default, or any queue given as `queue.backend`. With a KV dedupe on the queue's own KV, the claim and
 * the job commit in one atomic operation, so a kill can never leave one without the other. When the job
 * cannot be written the answer is 503 and the claim is given back, so the server retries. Internal.
 *
 * @module
 */

import { ConfigurationException } from "../../errors.ts";
import { WriteOrder } from "../../inbound/arrivals.ts";
import type { MetricsCollector } from "../../metrics.ts";
import { denoOnlyError } from "../../runtime.ts";
import { openKvWhenFree } from "../../backends/kv/busy.ts";
import type { GatewayStore } from "../../store/store.ts";
import type { WebhookDedupe } from "../dedupe.ts";
import { KvWebhookDedupe } from "../../backends/kv/dedupe.ts";
import type { WebhookProcessor } from "../processor.ts";
import {
  KvWebhookQueue,
  type ProcessWebhookJob,
  QUEUE_OPTION_KEYS,
  startWebhookWorker,
  WEBHOOK_JOB_TYPE,
  type WebhookJobQueue,
  type WebhookQueueOptions,
  webhookQueueSettings,
  type WebhookWorker,
} from "../queue.ts";
import { describeError, saveWebhookLog } from "../run.ts";
import { alreadyClaimed, completeClaim, releaseClaim } from "./dedupe.ts";
import { BODIES, count, refuse, respond, RETRY_AFTER } from "./respond.ts";
import type { DispatchMode, QueueMode, Receiver, RequestState, WebhookExecutionContext } from "./state.ts";

/** Queue settings of the handler. */
export interface WebhookHandlerQueueOptions extends WebhookQueueOptions {
  /** Turn queue mode on (default true when an object is given). */
  enabled?: boolean;
  /**
   * `auto` (default): a KV queue when `kv` is given or on Deno, else `ctx.waitUntil` when the runtime passes
   * one (Workers), else sync processing. `kv` or `wait_until` force one. Ignored with `backend`.
   */
  mode?: "auto" | "kv" | "wait_until";
  /** The KV to enqueue on, or a function opening it. Default on Deno: `Deno.openKv(path)` on first use. */
  kv?: Deno.Kv | (() => Promise<Deno.Kv>);
  /** Path for `Deno.openKv` when the handler opens the KV itself. */
  path?: string;
  /** Start a worker on a KV the handler opened itself (default true). */
  worker?: boolean;
  /** Your own queue (Cloudflare Queues, SQS, …): jobs go there instead of a KV queue. */
  backend?: WebhookJobQueue;
}

/** The keys of {@link WebhookHandlerQueueOptions}, for the unknown-key check. Internal. */
export const HANDLER_QUEUE_OPTION_KEYS = {
  ...QUEUE_OPTION_KEYS,
  enabled: true,
  mode: true,
  kv: true,
  path: true,
  worker: true,
  backend: true,
} as const satisfies Record<keyof WebhookHandlerQueueOptions, true>;

/** The queue mode of one handler: where its jobs go, and the KV and worker it opened itself. */
export class QueueDispatch implements QueueMode {
  readonly options: WebhookHandlerQueueOptions;
  /** The queue's own settings (prefix, attempts, backoff), without the handler's. */
  readonly #settings: WebhookQueueOptions;
  /** The claim commits with the job (a KV dedupe on the queue's own KV). */
  readonly claimsAtomically: boolean;
  /** Jobs are written in the order their webhooks arrived. */
  readonly order: WriteOrder = new WriteOrder();
  readonly #canOpenKv: boolean;
  readonly #worker: Omit<Parameters<typeof startWebhookWorker>[2], "prefix"> & {
    processor: WebhookProcessor;
  };
  #queue: Promise<WebhookJobQueue> | undefined;
  #ownKv: Deno.Kv | undefined;
  #ownWorker: WebhookWorker | undefined;

  constructor(
    options: WebhookHandlerQueueOptions,
    dedupe: WebhookDedupe | undefined,
    worker: {
      processor: WebhookProcessor;
      store?: GatewayStore;
      metrics?: MetricsCollector;
      now: () => number;
    },
  ) {
    webhookQueueSettings(options); // refused when configured, not at the first webhook
    this.options = options;
    const { prefix, maxAttempts, backoffMs } = options;
    this.#settings = { prefix, maxAttempts, backoffMs };
    const kv = options.kv;
    this.claimsAtomically = options.backend === undefined && dedupe instanceof KvWebhookDedupe &&
      kv !== undefined && typeof kv !== "function" && dedupe.kv === kv;
    const deno = (globalThis as { Deno?: typeof Deno }).Deno;
    this.#canOpenKv = kv !== undefined || typeof deno?.openKv === "function";
    if (options.mode === "kv" && options.backend === undefined && !this.#canOpenKv) {
      // Refused when the handler is built, not at every webhook: without Deno, or on Deno without KV.
      const message = deno === undefined
        ? denoOnlyError(
          'the Deno KV queue (queue.mode "kv")',
          "pass queue.kv, or queue.backend (RedisWebhookQueue from @gw/gateway/redis)",
        ).message
        : 'Cannot use the Deno KV queue (queue.mode "kv"): Deno.openKv is not available; run with ' +
          '--unstable-kv (or "kv" in deno.json\'s "unstable" list), or pass queue.kv or queue.backend';
      throw new ConfigurationException(message, { setting: "queue.mode" });
    }
    this.#worker = worker;
  }

  /** How a webhook is processed; Workers pass `ctx` per request, so it is chosen per request. */
  modeFor(ctx: WebhookExecutionContext | undefined): DispatchMode {
    const options = this.options;
    if (options.backend !== undefined) return "queue";
    const mode = options.mode ?? "auto";
    const waitUntil = typeof ctx?.waitUntil === "function";
    if (mode === "kv") return "queue";
    if (mode === "wait_until") return waitUntil ? "wait_until" : "sync";
    if (options.kv !== undefined) return "queue";
    return waitUntil ? "wait_until" : this.#canOpenKv ? "queue" : "sync";
  }

  /** The queue jobs go to: the given one, or a KV queue on the given or opened KV. */
  queue(): Promise<WebhookJobQueue> {
    if (this.#queue === undefined) {
      const options = this.options;
      this.#queue = (async () => {
        if (options.backend !== undefined) return options.backend;
        const given = options.kv;
        if (given !== undefined) {
          return new KvWebhookQueue(typeof given === "function" ? await given() : given, this.#settings);
        }
        const kv = await openKvWhenFree(options.path);
        this.#ownKv = kv;
        if (options.worker !== false) {
          const { processor, ...rest } = this.#worker;
          this.#ownWorker = startWebhookWorker(kv, processor, { ...this.#settings, ...rest });
        }
        return new KvWebhookQueue(kv, this.#settings);
      })();
      this.#queue.catch(() => this.#queue = undefined);
    }
    return this.#queue;
  }

  /** Close the KV and worker this handler opened itself; a no-op otherwise. */
  async close(): Promise<void> {
    const kv = this.#ownKv;
    const worker = this.#ownWorker;
    this.#ownKv = undefined;
    this.#ownWorker = undefined;
    this.#queue = undefined;
    if (worker !== undefined) await worker.idle();
    if (kv !== undefined) kv.close();
    if (worker !== undefined) await worker.finished.catch(() => {});
  }
}

function jobOf(state: RequestState): ProcessWebhookJob {
  const job: ProcessWebhookJob = {
    type: WEBHOOK_JOB_TYPE,
    id: crypto.randomUUID(),
    instance: state.route.instance ?? state.payload.instance,
    attempt: 0,
    receivedAt: state.receivedAt,
    body: state.body,
  };
  if (state.deliveryId !== undefined) job.deliveryId = state.deliveryId;
  if (state.route.event !== undefined) job.event = state.route.event;
  return job;
}

/** Write the webhook log record `received` (when there is a store and a delivery id). */
export async function logReceived(receiver: Receiver, state: RequestState): Promise<void> {
  if (receiver.store === undefined || state.deliveryId === undefined) return;
  const payload = state.payload;
  await saveWebhookLog(
    receiver.store,
    { id: state.deliveryId, event: payload.event, instance: payload.instance, receivedAt: state.receivedAt },
    "received",
    state.receivedAt,
  );
}

function unavailable(receiver: Receiver, state: RequestState, error: unknown, claimed: boolean): Response {
  // An atomic claim failed with its job: nothing was written, and the record there is someone else's.
  if (claimed) releaseClaim(receiver, state.deliveryId);
  receiver.metrics?.queueJob("enqueue_failed");
  return refuse(
    receiver,
    503,
    BODIES.unavailable,
    "queue_unavailable",
    `queue refused the job: ${describeError(error)}`,
    state.payload.event,
    RETRY_AFTER,
  );
}

/** Write the job (with its claim when that commits atomically), in arrival order, and answer 202. */
export async function dispatchQueue(receiver: Receiver, state: RequestState): Promise<Response> {
  const dispatch = receiver.queue!;
  const job = jobOf(state);
  const id = state.deliveryId;
  // The queue delivers jobs in the order they were written: each is written once the earlier arrivals' are.
  const inOrder = <T>(write: () => Promise<T>) => state.writeTurn?.run(write) ?? write();
  if (dispatch.claimsAtomically && id !== undefined) {
    let queued: boolean;
    try {
      const queue = await dispatch.queue() as KvWebhookQueue;
      queued = await inOrder(() =>
        queue.enqueueClaimed(
          job,
          receiver.dedupe as KvWebhookDedupe,
          state.receivedAt,
          () => logReceived(receiver, state),
        )
      );
    } catch (error) {
      return unavailable(receiver, state, error, false);
    }
    if (!queued) return await alreadyClaimed(receiver, state);
  } else {
    await logReceived(receiver, state);
    try {
      const queue = await dispatch.queue();
      await inOrder(() => queue.enqueue(job));
    } catch (error) {
      return unavailable(receiver, state, error, true);
    }
    await completeClaim(receiver, id);
  }
  receiver.metrics?.queueJob("enqueued");
  count(receiver, state.payload.event, "202");
  return respond(202, BODIES.queued);
}
