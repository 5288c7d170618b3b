import { getGatewayLogger } from "../log.ts";
import type { MetricsCollector } from "../metrics.ts";
import type { GatewayStore, WebhookLogRecord, WebhookLogStatus } from "../store/store.ts";
import { eventLabel, type WebhookPayloadDto } from "./payload.ts";
import type { Arrival } from "../inbound/arrivals.ts";
import { PROCESS, type WebhookProcessor } from "./processor.ts";

const logger = getGatewayLogger("webhook");

/** Bookkeeping around one run. */
export interface RunContext {
  /** Store for the webhook log. */
  store?: GatewayStore;
  /** Metrics. */
  metrics?: MetricsCollector;
  /** Id of the webhook log record (none: no log is written). */
  logId?: string;
  /** Whether a failure is final (log `failed`) or will be retried (log stays `received`). */
  final: boolean;
  /** Clock, epoch ms: whole ms suffice for a histogram from 5 ms, and tests inject exact durations. */
  now: () => number;
}

/** A short, single-line description of an error for logs and records. */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}

/** Write a webhook log record; a failing store is logged, never fatal. */
export async function saveWebhookLog(
  store: GatewayStore,
  record: Omit<WebhookLogRecord, "status" | "updatedAt">,
  status: WebhookLogStatus,
  now: number,
): Promise<void> {
  try {
    await store.saveWebhookLog({ ...record, status, updatedAt: now });
  } catch (error) {
    logger.warn("Cannot save webhook log {id}: {error}", { id: record.id, error: describeError(error) });
  }
}

/** Run the processor for `payload` and record the outcome; rejects with its failure after recording it. */
export async function runWebhook(
  processor: WebhookProcessor,
  payload: WebhookPayloadDto,
  context: RunContext,
  arrival?: Arrival<WebhookPayloadDto>,
): Promise<void> {
  const started = context.now();
  try {
    const pending = processor[PROCESS](payload, arrival);
    if (pending !== undefined) await pending;
  } catch (error) {
    return await settle(payload, context, started, true, error);
  }
  await settle(payload, context, started, false, undefined);
}

async function settle(
  payload: WebhookPayloadDto,
  context: RunContext,
  started: number,
  failed: boolean,
  failure: unknown,
): Promise<void> {
  const finished = context.now();
  // Wall clocks can step back (NTP): a negative duration is recorded as 0.
  const processingMs = Math.max(0, finished - started);
  context.metrics?.webhookProcessed(eventLabel(payload.event), processingMs);
  if (failed) {
    logger.error("Webhook {event} for instance {instance} failed: {error}", {
      event: payload.event,
      instance: payload.instance,
      deliveryId: payload.deliveryId,
      error: describeError(failure),
    });
  }
  if (context.store !== undefined && context.logId !== undefined) {
    const record: Omit<WebhookLogRecord, "status" | "updatedAt"> = {
      id: context.logId,
      event: payload.event,
      instance: payload.instance,
      receivedAt: payload.receivedAt,
      processingMs,
    };
    if (failed) record.error = describeError(failure);
    const status = failed ? (context.final ? "failed" : "received") : "processed";
    await saveWebhookLog(context.store, record, status, finished);
  }
  if (failed) throw failure;
}
