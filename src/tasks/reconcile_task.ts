/**
 * The scheduled `reconcile` task: `reconcileInboundMessages`, then the status tracker's stuck check.
 *
 * @module
 */

import {
  reconcileInboundMessages,
  type ReconcileInboundResult,
  type ReconcileInboundService,
} from "../delivery/reconcile.ts";
import type { GatewayStore } from "../store/store.ts";
import type { WebhookProcessor } from "../webhooks/processor.ts";

/** The reconcile task: when it runs and what it checks. */
export interface ReconcileInboundTaskOptions {
  /** Cron expression, UTC (default `"*\/15 * * * *"`, every fifteen minutes). */
  schedule?: string;
  /** The processor that runs your handlers (the one your webhook receiver uses; it needs the store). */
  processor: WebhookProcessor;
  /** Instances to reconcile (default the service's instance). */
  instances?: readonly string[];
  /** At most this many messages checked per instance and run (default 1000). */
  maxMessages?: number;
  /** On a chat's first run, look this far back, in ms (default 24 hours). */
  lookbackMs?: number;
  /** Cron job name (default `"gateway-reconcile"`); unique per isolate. */
  name?: string;
}

/** The default schedule of the reconcile task: every fifteen minutes. */
export const RECONCILE_SCHEDULE = "*/15 * * * *";
/** The default job name of the reconcile task. */
export const RECONCILE_NAME = "gateway-reconcile";

function isReconcileService(service: unknown): service is ReconcileInboundService {
  const s = service as Partial<ReconcileInboundService> | null;
  return typeof s?.instance === "function" && typeof s.getStore === "function" &&
    typeof s.getInstanceName === "function";
}

/** One run of the task: reconcile, then report messages stuck in PENDING (`MessageStuck`). */
export async function runReconcileTask(
  task: ReconcileInboundTaskOptions,
  service: unknown,
  store: GatewayStore,
  processor: WebhookProcessor,
  now?: () => number,
): Promise<ReconcileInboundResult> {
  if (!isReconcileService(service)) {
    throw new TypeError("Cannot run the reconcile task: the service is not a GatewayService");
  }
  const result = await reconcileInboundMessages(service, {
    processor,
    store,
    instances: task.instances,
    maxMessages: task.maxMessages,
    lookbackMs: task.lookbackMs,
    now,
  });
  await processor.messageStatus?.checkStuck();
  return result;
}
