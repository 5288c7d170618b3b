/**
 * The options and results of the scheduled tasks (`registerScheduledTasks`, `createScheduledHandler`).
 *
 * @module
 */

import type { ReconcileInboundResult } from "../delivery/reconcile.ts";
import type { GatewayStore, RecordKind } from "../store/store.ts";
import type { PruneResult } from "./prune.ts";
import type { ReconcileSendsResult } from "./reconcile_sends.ts";
import type { ReconcileInboundTaskOptions } from "./reconcile_task.ts";
import type { RetryFailedResult, RetryService } from "./retry_failed.ts";
import type { TaskLease } from "./task_lease.ts";

/** The prune task: when it runs and what it removes. */
export interface PruneTaskOptions {
  /** Cron expression, UTC (default `"0 3 * * *"`, every day at 03:00). */
  schedule?: string;
  /** Remove records older than this many days (default 30). */
  days?: number;
  /** Kinds to prune (default all). */
  kinds?: readonly RecordKind[];
  /** Cron job name (default `"gateway-prune"`); unique per isolate. */
  name?: string;
}

/** The retry-failed task: when it runs and what it resends. */
export interface RetryFailedTaskOptions {
  /** Cron expression, UTC (default `"*\/5 * * * *"`, every five minutes). */
  schedule?: string;
  /** Skip records resent this many times (default 3). */
  maxRetries?: number;
  /** At most this many resends per run (default 100). */
  limit?: number;
  /** Only records of this instance. */
  instance?: string;
  /** Cron job name (default `"gateway-retry-failed"`); unique per isolate. */
  name?: string;
}

/** The reconcile-sends task: when it settles sends whose outcome is unknown. */
export interface ReconcileSendsTaskOptions {
  /** Cron expression, UTC (default `"*\/10 * * * *"`, every ten minutes). */
  schedule?: string;
  /** At most this many records looked up per run (default 100). */
  limit?: number;
  /** Only records of this instance. */
  instance?: string;
  /** Only records whose last attempt is at least this old, in ms (default 60 000). */
  minAgeMs?: number;
  /** Cron job name (default `"gateway-reconcile-sends"`); unique per isolate. */
  name?: string;
}

/** What both schedulers share. */
export interface ScheduledTasksBaseOptions {
  /** The prune task, or false to leave it out. */
  prune?: PruneTaskOptions | false;
  /** The retry-failed task, or false to leave it out. */
  retryFailed?: RetryFailedTaskOptions | false;
  /** The reconcile-sends task, or false to leave it out. */
  reconcileSends?: ReconcileSendsTaskOptions | false;
  /**
   * The reconcile task (recover inbound messages whose webhooks were dropped, then report stuck sends),
   * or false to leave it out (the default: give an object to run it).
   */
  reconcile?: ReconcileInboundTaskOptions | false;
  /** A Deno KV used for a lease per task, so that several isolates never run one task at once. */
  kv?: Deno.Kv;
  /** A custom cross-isolate lease instead of `kv`. */
  lease?: TaskLease;
  /** How long a lease holds (default 15 minutes): longer than the longest run. */
  leaseMs?: number;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
}

/** Options of `registerScheduledTasks`. */
export interface RegisterScheduledTasksOptions extends ScheduledTasksBaseOptions {
  /** Sends the retried messages (a `GatewayService`). */
  service: RetryService;
  /** The records. */
  store: GatewayStore;
  /** Registers a job: `Deno.cron`'s three-argument form (the default; inject one in tests). */
  cron?: (name: string, schedule: string, handler: () => Promise<void>) => unknown;
}

/** The registered handlers, callable directly; each resolves to null when a previous run is going. */
export interface ScheduledTaskHandlers {
  /** Runs the prune task, when registered. */
  prune?: () => Promise<PruneResult | null>;
  /** Runs the retry-failed task, when registered. */
  retryFailed?: () => Promise<RetryFailedResult | null>;
  /** Runs the reconcile-sends task, when registered. */
  reconcileSends?: () => Promise<ReconcileSendsResult | null>;
  /** Runs the reconcile task, when registered. */
  reconcile?: () => Promise<ReconcileInboundResult | null>;
}

/** A Workers `scheduled` handler (what `createScheduledHandler` returns): `export default { scheduled }`. */
export type HandleScheduled<Env = unknown> = (
  /** The part of Workers' `ScheduledController` used: the trigger's cron expression as in `wrangler.toml`. */
  controller: { readonly cron: string; readonly scheduledTime?: number },
  env: Env,
  /** The part of Workers' `ExecutionContext` used: keeps the Worker alive until the work settles. */
  ctx: { waitUntil(promise: Promise<unknown>): void },
) => Promise<void>;

/** Options of `createScheduledHandler`: values, or functions of the Worker's `env`. */
export interface ScheduledHandlerOptions<Env = unknown> extends Omit<ScheduledTasksBaseOptions, "lease"> {
  /**
   * A cross-isolate lease, or a function building it from `env` (Workers has no Deno KV: for example
   * `(env) => stateTaskLease(new D1State(env.DB))`).
   */
  lease?: TaskLease | ((env: Env) => TaskLease);
  /** The service, or a function building it from `env` (Workers bindings arrive with each event). */
  service: RetryService | ((env: Env) => RetryService | Promise<RetryService>);
  /** The store, or a function building it from `env`. */
  store: GatewayStore | ((env: Env) => GatewayStore | Promise<GatewayStore>);
}
