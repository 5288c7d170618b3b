/**
 * The Deno KV queue: jobs by `kv.enqueue`, large bodies in chunks; a KV dedupe's claim commits with the job.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { WebhookException } from "../../errors.ts";
import { withBusyRetry } from "./busy.ts";
import { joinBytes } from "../../webhooks/encoding.ts";
import type { KvWebhookDedupe } from "./dedupe.ts";
import {
  type ProcessWebhookJob,
  QUEUE_OPTION_KEYS,
  type WebhookJobQueue,
  type WebhookQueueOptions,
  webhookQueueSettings,
} from "../../webhooks/queue/interface.ts";

const INLINE_LIMIT = 60_000;
const CHUNK_SIZE = 60_000;
const CHUNKS_PER_COMMIT = 8;

// The body goes in chunks beside the job when it is too large for one value; returns the value to enqueue.
async function writeBody(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  prefix: Deno.KvKey,
): Promise<ProcessWebhookJob> {
  if (job.body === undefined || job.body.byteLength <= INLINE_LIMIT) return job;
  const body = job.body;
  const count = Math.ceil(body.byteLength / CHUNK_SIZE);
  for (let first = 0; first < count; first += CHUNKS_PER_COMMIT) {
    const result = await withBusyRetry(() => {
      const op = kv.atomic();
      for (let i = first; i < Math.min(count, first + CHUNKS_PER_COMMIT); i++) {
        op.set([...prefix, "body", job.id, i], body.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE));
      }
      return op.commit();
    });
    if (!result.ok) throw new WebhookException("Cannot queue webhook: writing the body failed");
  }
  const value: ProcessWebhookJob = { ...job, chunks: count };
  delete value.body;
  return value;
}

/**
 * Write a job to the KV queue (its body in chunks when it is too large for one value).
 *
 * @example
 * ```ts
 * import { enqueueWebhookJob } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * await enqueueWebhookJob(kv, {
 *   type: "gateway.webhook.process", id: crypto.randomUUID(), instance: "sales", attempt: 0, receivedAt: Date.now(),
 *   body: new TextEncoder().encode('{"event":"call","data":{}}'),
 * });
 * kv.close();
 * ```
 */
export async function enqueueWebhookJob(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  options: WebhookQueueOptions & { delay?: number } = {},
): Promise<void> {
  const { prefix } = webhookQueueSettings(options);
  const value = await writeBody(kv, job, prefix);
  await withBusyRetry(() =>
    kv.enqueue(value, { delay: options.delay, keysIfUndelivered: [[...prefix, "dead_letter", job.id]] })
  );
}

/**
 * The Deno KV queue as a {@link WebhookJobQueue}: what queue mode uses on Deno. With a
 * {@link KvWebhookDedupe} on the same KV, {@link KvWebhookQueue.enqueueClaimed} commits the delivery's
 * claim and its job in one atomic operation.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, KvWebhookQueue } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * const handler = createWebhookHandler({
 *   signature: { secret: "s3cret" },
 *   queue: { backend: new KvWebhookQueue(kv, { maxAttempts: 3 }) },
 * });
 * kv.close();
 * ```
 */
export class KvWebhookQueue implements WebhookJobQueue {
  /** The KV the jobs are written to. */
  readonly kv: Deno.Kv;
  readonly #options: WebhookQueueOptions;
  readonly #prefix: Deno.KvKey;

  /** Enqueue on `kv`, under `options.prefix` for chunks and dead letters. */
  constructor(kv: Deno.Kv, options: WebhookQueueOptions = {}) {
    checkOptionKeys(options, QUEUE_OPTION_KEYS, "new KvWebhookQueue");
    this.kv = kv;
    this.#prefix = webhookQueueSettings(options).prefix;
    this.#options = options;
  }

  /** Write a job. */
  enqueue(job: ProcessWebhookJob): Promise<void> {
    return enqueueWebhookJob(this.kv, job, this.#options);
  }

  /**
   * Claim `job.deliveryId` in `dedupe` (which must use the same KV) and write the job, in one atomic
   * operation: either both are committed or neither is. Resolves false, with nothing written, when the
   * delivery is already claimed. `beforeCommit` runs once the claim looked free, before the commit (the
   * handler writes its webhook log there).
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe, KvWebhookQueue } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * const queue = new KvWebhookQueue(kv);
   * const job = {
   *   type: "gateway.webhook.process" as const, id: crypto.randomUUID(), deliveryId: "evt_1", instance: "sales",
   *   attempt: 0, receivedAt: Date.now(), body: new TextEncoder().encode('{"event":"call","data":{}}'),
   * };
   * await queue.enqueueClaimed(job, new KvWebhookDedupe(kv), Date.now()); // true
   * await queue.enqueueClaimed({ ...job, id: crypto.randomUUID() }, new KvWebhookDedupe(kv), Date.now()); // false
   * kv.close();
   * ```
   */
  async enqueueClaimed(
    job: ProcessWebhookJob,
    dedupe: KvWebhookDedupe,
    now: number,
    beforeCommit?: () => Promise<void>,
  ): Promise<boolean> {
    const key = job.deliveryId;
    if (key === undefined) {
      throw new WebhookException("Cannot queue webhook: the job has no delivery id to claim");
    }
    if (dedupe.kv !== this.kv) {
      throw new WebhookException("Cannot queue webhook: the dedupe and the queue use different KV handles");
    }
    const value = await writeBody(this.kv, job, this.#prefix);
    let before = beforeCommit;
    // A lost race means someone else's claim is now there: the next round sees it and answers duplicate.
    for (let round = 0; round < 12; round++) {
      const outcome = await withBusyRetry(async () => {
        const op = this.kv.atomic();
        if (!await dedupe.claimWithin(op, key, now)) return "claimed";
        if (before !== undefined) {
          await before();
          before = undefined;
        }
        op.enqueue(value, { keysIfUndelivered: [[...this.#prefix, "dead_letter", job.id]] });
        return (await op.commit()).ok ? "queued" : "raced";
      });
      if (outcome === "queued") return true;
      if (outcome === "claimed") {
        await deleteBody(this.kv, value, this.#prefix);
        return false;
      }
    }
    throw new WebhookException("Cannot queue webhook: the delivery's claim kept changing");
  }
}

/** The job's body: inline, or read back from its chunks (null when one is missing). Internal. */
export async function loadBody(
  kv: Deno.Kv,
  job: ProcessWebhookJob,
  prefix: Deno.KvKey,
): Promise<Uint8Array | null> {
  if (job.body instanceof Uint8Array) return job.body;
  if (typeof job.chunks !== "number") return null;
  const parts: Uint8Array[] = [];
  for await (const entry of kv.list<Uint8Array>({ prefix: [...prefix, "body", job.id] })) {
    parts.push(entry.value);
  }
  if (parts.length !== job.chunks) return null;
  return joinBytes(parts);
}

/** Delete the job's body chunks in `op`. Internal. */
export function deleteBodyKeys(op: Deno.AtomicOperation, job: ProcessWebhookJob, prefix: Deno.KvKey): void {
  if (typeof job.chunks !== "number") return;
  for (let i = 0; i < job.chunks; i++) op.delete([...prefix, "body", job.id, i]);
}

/** Delete the job's body chunks. Internal. */
export async function deleteBody(kv: Deno.Kv, job: ProcessWebhookJob, prefix: Deno.KvKey): Promise<void> {
  if (typeof job.chunks !== "number") return;
  await withBusyRetry(() => {
    const op = kv.atomic();
    deleteBodyKeys(op, job, prefix);
    return op.commit();
  });
}
