/**
 * The Deno KV queue's dead letters: list them, and put one back on the queue.
 *
 * @module
 */

import { withBusyRetry } from "./busy.ts";
import {
  type DeadLetter,
  DEFAULT_PREFIX,
  isProcessWebhookJob,
  type ProcessWebhookJob,
  type WebhookQueueOptions,
} from "../../webhooks/queue/interface.ts";

/**
 * The dead-letter list, oldest job id order.
 *
 * @example
 * ```ts
 * import { listDeadLetters } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * for (const entry of await listDeadLetters(kv)) console.log(entry.job.id, entry.error);
 * kv.close();
 * ```
 */
export async function listDeadLetters(
  kv: Deno.Kv,
  options: { prefix?: Deno.KvKey; limit?: number } = {},
): Promise<DeadLetter[]> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const out: DeadLetter[] = [];
  for await (const entry of kv.list({ prefix: [...prefix, "dead_letter"] }, { limit: options.limit })) {
    const value = entry.value;
    if (isProcessWebhookJob(value)) {
      // Written by the KV queue itself (keysIfUndelivered) when it gave up delivering.
      out.push({
        job: value,
        error: "the KV queue could not deliver the job",
        attempts: value.attempt + 1,
        failedAt: 0,
      });
    } else if (
      value !== null && typeof value === "object" && isProcessWebhookJob((value as DeadLetter).job)
    ) {
      out.push(value as DeadLetter);
    }
  }
  return out;
}

/**
 * Put a dead-lettered job back on the queue with a fresh attempt count; false when there is no such entry.
 *
 * @example
 * ```ts
 * import { listDeadLetters, requeueDeadLetter } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * for (const entry of await listDeadLetters(kv)) await requeueDeadLetter(kv, entry.job.id);
 * kv.close();
 * ```
 */
export async function requeueDeadLetter(
  kv: Deno.Kv,
  id: string,
  options: WebhookQueueOptions = {},
): Promise<boolean> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const key = [...prefix, "dead_letter", id];
  const entry = await kv.get<DeadLetter | ProcessWebhookJob>(key);
  const job = isProcessWebhookJob(entry.value)
    ? entry.value
    : isProcessWebhookJob((entry.value as DeadLetter | null)?.job)
    ? (entry.value as DeadLetter).job
    : null;
  if (job === null) return false;
  // One commit: the entry cannot be dead-lettered again and then deleted by this call; the job's
  // completion and attempt records go with it, so that the worker runs it again.
  const result = await withBusyRetry(() =>
    kv.atomic()
      .check(entry)
      .delete(key)
      .delete([...prefix, "done", job.id])
      .delete([...prefix, "attempt", job.id])
      .enqueue({ ...job, attempt: 0 }, { keysIfUndelivered: [key] })
      .commit()
  );
  return result.ok;
}
