import { getGatewayLogger } from "../../log.ts";
import type { Arrival } from "../../inbound/arrivals.ts";
import { WebhookPayloadDto } from "../payload.ts";
import type { WebhookProcessor } from "../processor.ts";
import { describeError, runWebhook, saveWebhookLog } from "../run.ts";
import { failureText, instanceLabel } from "../pipeline/respond.ts";
import { RateLimitedReports } from "../pipeline/reports.ts";
import {
  type DeadLetter,
  type ProcessWebhookJob,
  type WebhookJobOutcome,
  webhookQueueSettings,
  type WebhookWorkerOptions,
} from "./interface.ts";

const logger = getGatewayLogger("webhook", "queue");

// The receiver answered 202, so a failing handler shows only here: one stderr line per event, instance and
// outcome per minute, keyed by processor so that two workers never silence each other.
const reportsByProcessor = new WeakMap<WebhookProcessor, WeakMap<() => number, RateLimitedReports>>();

function reportFailure(
  processor: WebhookProcessor,
  now: () => number,
  payload: WebhookPayloadDto,
  outcome: string,
  error: unknown,
): void {
  let byClock = reportsByProcessor.get(processor);
  if (byClock === undefined) reportsByProcessor.set(processor, byClock = new WeakMap());
  let reports = byClock.get(now);
  if (reports === undefined) byClock.set(now, reports = new RateLimitedReports(now));
  const instance = instanceLabel(payload);
  reports.report(
    `${payload.event} ${instance} ${outcome.startsWith("dead") ? "dead" : "retry"}`,
    () =>
      `Webhook ${payload.event} for instance ${instance} failed in the queue worker (${outcome}): ${
        failureText(error, payload.apikey)
      }`,
  );
}

/** Where a job that did not succeed goes next: the queue engine's retry and dead-letter writes. */
export interface WebhookJobSettler {
  /** Put `job` (its attempt count already raised) back on the queue, due in `delay` ms. */
  retry(job: ProcessWebhookJob, delay: number): Promise<void>;
  /** Keep the job in the dead-letter list: `unreadable` (never ran) or `failed` (last attempt failed). */
  deadLetter(entry: DeadLetter, cause: "unreadable" | "failed"): Promise<void>;
  /** Record that the job was processed; false when another delivery completed first (`skipped`). */
  complete?(): Promise<boolean>;
}

/**
 * Run one loaded job, or have `settler` retry (backoff) or dead-letter it; every queue engine uses it.
 * Throws only when the settler or the store fails, never for a failing handler. `arrival`: the job's place,
 * taken when the queue delivered it (before its body was loaded), so that loading does not reorder jobs.
 *
 * @example Running a job held somewhere else
 * ```ts
 * import { webhookProcessor } from "@gw/gateway";
 * import { settleWebhookJob, WEBHOOK_JOB_TYPE } from "@gw/gateway/webhooks";
 * const job = { type: WEBHOOK_JOB_TYPE, id: "1", instance: "sales", attempt: 0, receivedAt: 0 } as const;
 * const settler = { retry: () => Promise.resolve(), deadLetter: () => Promise.resolve() };
 * const body = new TextEncoder().encode('{"event":"call","data":{}}');
 * console.log(await settleWebhookJob(job, body, webhookProcessor(), {}, settler)); // "processed"
 * ```
 */
export async function settleWebhookJob(
  job: ProcessWebhookJob,
  body: Uint8Array | null,
  processor: WebhookProcessor,
  options: Omit<WebhookWorkerOptions, "prefix">,
  settler: WebhookJobSettler,
  arrival?: Arrival<WebhookPayloadDto>,
): Promise<WebhookJobOutcome> {
  const { maxAttempts, backoff } = webhookQueueSettings(options);
  const now = options.now ?? Date.now;
  const attempts = job.attempt + 1;
  const logId = job.deliveryId ?? job.id;
  const payload = readJobPayload(job, body);
  if (payload === null) {
    const error = body === null ? "the job's body is missing" : "the job's body is not a webhook envelope";
    if (options.store !== undefined) {
      await saveWebhookLog(
        options.store,
        { id: logId, event: "UNKNOWN", instance: job.instance, receivedAt: job.receivedAt, error },
        "failed",
        now(),
      );
    }
    return await deadLetterJob(job, error, "unreadable", options, settler);
  }
  const final = attempts >= maxAttempts;
  try {
    await runWebhook(processor, payload, {
      store: options.store,
      metrics: options.metrics,
      logId,
      final,
      now,
    }, arrival);
  } catch (error) {
    const attempt = `attempt ${attempts} of ${maxAttempts}`;
    reportFailure(processor, now, payload, `${attempt}, ${final ? "dead-lettered" : "retried"}`, error);
    if (final) return await deadLetterJob(job, describeError(error), "failed", options, settler);
    const delay = backoff[Math.min(job.attempt, backoff.length - 1)];
    await settler.retry({ ...job, attempt: attempts }, delay);
    options.metrics?.queueJob("retried");
    logger.warn("Webhook job {id} failed (attempt {attempts} of {maxAttempts}), retrying in {delay} ms", {
      id: job.id,
      attempts,
      maxAttempts,
      delay,
    });
    return "retried";
  }
  if (settler.complete !== undefined && !await settler.complete()) {
    options.metrics?.queueJob("skipped");
    return "skipped";
  }
  options.metrics?.queueJob("processed");
  return "processed";
}

/** The job's webhook, or null when its body is missing or not a webhook envelope. */
function readJobPayload(job: ProcessWebhookJob, body: Uint8Array | null): WebhookPayloadDto | null {
  if (body === null) return null;
  try {
    return WebhookPayloadDto.from(JSON.parse(new TextDecoder().decode(body)), {
      instance: job.instance,
      event: job.event,
      deliveryId: job.deliveryId,
      receivedAt: job.receivedAt,
    });
  } catch {
    return null;
  }
}

async function deadLetterJob(
  job: ProcessWebhookJob,
  error: string,
  cause: "unreadable" | "failed",
  options: Omit<WebhookWorkerOptions, "prefix">,
  settler: WebhookJobSettler,
): Promise<WebhookJobOutcome> {
  const attempts = job.attempt + 1;
  const entry: DeadLetter = { job, error, attempts, failedAt: (options.now ?? Date.now)() };
  await settler.deadLetter(entry, cause);
  options.metrics?.queueJob("dead_lettered");
  logger.error("Webhook job {id} dead-lettered after {attempts} attempt(s): {error}", {
    id: job.id,
    attempts,
    error,
  });
  options.onDeadLetter?.(entry);
  return "dead_lettered";
}
