/**
 * Running `pruneOldRecords`, `retryFailedMessages`, `reconcileSends` and `reconcileInboundMessages` on a schedule: `registerScheduledTasks` with
 * `Deno.cron` (Deno CLI, Deno Deploy), `createScheduledHandler` for a Cloudflare Workers `scheduled`
 * export (cron triggers in `wrangler.toml`).
 *
 * @module
 */

import { MAX_TIMER_MS } from "../config_schema.ts";
import { ConfigurationException } from "../errors.ts";
import { denoOnlyError } from "../runtime.ts";
import { getGatewayLogger } from "../log.ts";
import type { GatewayStore, RecordKind } from "../store/store.ts";
import { checkPruneOptions, pruneOldRecords, type PruneResult } from "./prune.ts";
import { reconcileSends, type ReconcileSendsResult } from "./reconcile_sends.ts";
import { retryFailedMessages, type RetryFailedResult, type RetryService } from "./retry_failed.ts";
import { kvTaskLease } from "../backends/kv/lease.ts";
import { guardTask, type TaskLease } from "./task_guard.ts";
import type { ReconcileInboundResult } from "../delivery/reconcile.ts";
import {
  RECONCILE_NAME,
  RECONCILE_SCHEDULE,
  type ReconcileInboundTaskOptions,
  runReconcileTask,
} from "./reconcile_task.ts";

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

/** Options of {@link registerScheduledTasks}. */
export interface RegisterScheduledTasksOptions extends ScheduledTasksBaseOptions {
  /** Sends the retried messages (a `GatewayService`). */
  service: RetryService;
  /** The records. */
  store: GatewayStore;
  /** Registers a job: `Deno.cron`'s three-argument form (the default; inject one in tests). */
  cron?: (name: string, schedule: string, handler: () => Promise<void>) => unknown;
}

/**
 * The handlers registered, callable directly (tests, a CLI, an admin route). Each resolves to null when
 * it was skipped because a previous run is still going.
 */
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

/** A Workers `scheduled` handler: `export default { scheduled: handleScheduled }`. */
export type HandleScheduled<Env = unknown> = (
  /** The part of Workers' `ScheduledController` used: the trigger's cron expression as in `wrangler.toml`. */
  controller: { readonly cron: string; readonly scheduledTime?: number },
  env: Env,
  /** The part of Workers' `ExecutionContext` used: keeps the Worker alive until the work settles. */
  ctx: { waitUntil(promise: Promise<unknown>): void },
) => Promise<void>;

/** Options of {@link createScheduledHandler}: values, or functions of the Worker's `env`. */
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

/** The default schedule of the prune task: every day at 03:00 UTC. */
const PRUNE_SCHEDULE = "0 3 * * *";
/** The default schedule of the retry-failed task: every five minutes. */
const RETRY_SCHEDULE = "*/5 * * * *";
/** The default schedule of the reconcile-sends task: every ten minutes. */
const RECONCILE_SENDS_SCHEDULE = "*/10 * * * *";
const PRUNE_NAME = "gateway-prune";
const RETRY_NAME = "gateway-retry-failed";
const RECONCILE_SENDS_NAME = "gateway-reconcile-sends";
const LEASE_MS = 15 * 60_000;
const log = getGatewayLogger("tasks");

interface Runner<Env, T> {
  name: string;
  schedule: string;
  run: (env: Env) => Promise<T | null>;
}

interface Runners<Env> {
  prune?: Runner<Env, PruneResult>;
  retryFailed?: Runner<Env, RetryFailedResult>;
  reconcileSends?: Runner<Env, ReconcileSendsResult>;
  reconcile?: Runner<Env, ReconcileInboundResult>;
}

function listRunners<Env>(runners: Runners<Env>): Runner<Env, unknown>[] {
  return [runners.prune, runners.retryFailed, runners.reconcileSends, runners.reconcile].filter((r) =>
    r !== undefined
  );
}

function normalizeSchedule(schedule: string): string {
  return schedule.trim().split(/\s+/).join(" ");
}

/** A task's counts and instance are checked when the task is registered, not at its first run. */
function checkTask<T extends { instance?: string }>(
  taskName: string,
  task: T,
  counts: readonly (keyof T & string)[],
): void {
  for (const name of counts) {
    const value: unknown = task[name];
    if (value !== undefined && (typeof value !== "number" || !Number.isInteger(value) || value < 0)) {
      throw new ConfigurationException(
        `Cannot schedule tasks: "${taskName}.${name}" must be a non-negative integer, got "${String(value)}"`,
        { setting: `${taskName}.${name}` },
      );
    }
  }
  if (task.instance !== undefined && (typeof task.instance !== "string" || task.instance.trim() === "")) {
    throw new ConfigurationException(
      `Cannot schedule tasks: "${taskName}.instance" must be a non-empty string when given`,
      { setting: `${taskName}.instance` },
    );
  }
}

function buildRunners<Env>(
  options: Omit<ScheduledTasksBaseOptions, "lease"> & { lease?: TaskLease | ((env: Env) => TaskLease) },
  resolve: (env: Env) => Promise<{ service: RetryService; store: GatewayStore }>,
): Runners<Env> {
  const lease = options.lease ??
    (options.kv === undefined ? undefined : kvTaskLease(options.kv, undefined, options.now));
  const leaseMs = options.leaseMs ?? LEASE_MS;
  if (typeof leaseMs !== "number" || !Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_TIMER_MS) {
    throw new ConfigurationException(
      `Cannot schedule tasks: "leaseMs" must be an integer from 1 to ${MAX_TIMER_MS} (ms), got "${
        String(leaseMs)
      }"`,
      { setting: "leaseMs" },
    );
  }
  const runners: Runners<Env> = {};
  if (options.prune !== false) {
    const task = options.prune ?? {};
    const days = task.days ?? 30;
    checkPruneOptions(days, task.kinds);
    const name = task.name ?? PRUNE_NAME;
    runners.prune = {
      name,
      schedule: task.schedule ?? PRUNE_SCHEDULE,
      run: guardTask(
        name,
        async (env: Env) => {
          const { store } = await resolve(env);
          return await pruneOldRecords({ store, days, kinds: task.kinds, now: options.now });
        },
        lease,
        leaseMs,
      ),
    };
  }
  if (options.retryFailed !== false) {
    const task = options.retryFailed ?? {};
    checkTask("retryFailed", task, ["limit", "maxRetries"]);
    const name = task.name ?? RETRY_NAME;
    runners.retryFailed = {
      name,
      schedule: task.schedule ?? RETRY_SCHEDULE,
      run: guardTask(
        name,
        async (env: Env) => {
          const { service, store } = await resolve(env);
          return await retryFailedMessages({
            service,
            store,
            maxRetries: task.maxRetries,
            limit: task.limit,
            instance: task.instance,
            now: options.now,
          });
        },
        lease,
        leaseMs,
      ),
    };
  }
  if (options.reconcileSends !== false) {
    const task = options.reconcileSends ?? {};
    checkTask("reconcileSends", task, ["limit", "minAgeMs"]);
    const name = task.name ?? RECONCILE_SENDS_NAME;
    runners.reconcileSends = {
      name,
      schedule: task.schedule ?? RECONCILE_SENDS_SCHEDULE,
      run: guardTask(
        name,
        async (env: Env) => {
          const { service, store } = await resolve(env);
          return await reconcileSends({
            service,
            store,
            limit: task.limit,
            instance: task.instance,
            minAgeMs: task.minAgeMs,
            now: options.now,
          });
        },
        lease,
        leaseMs,
      ),
    };
  }
  if (options.reconcile !== undefined && options.reconcile !== false) {
    const task = options.reconcile;
    const name = task.name ?? RECONCILE_NAME;
    const processor = task.processor;
    if (processor === undefined || typeof processor.process !== "function") {
      throw new ConfigurationException(
        "Cannot schedule the reconcile task: give it the processor that runs your handlers (reconcile.processor)",
        { setting: "reconcile.processor" },
      );
    }
    runners.reconcile = {
      name,
      schedule: task.schedule ?? RECONCILE_SCHEDULE,
      run: guardTask(
        name,
        async (env: Env) => {
          const { service, store } = await resolve(env);
          return await runReconcileTask(task, service, store, processor, options.now);
        },
        lease,
        leaseMs,
      ),
    };
  }
  const names = listRunners(runners).map((runner) => runner.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) {
    throw new ConfigurationException(`Cannot schedule tasks: two tasks are named "${twice}"`, {
      setting: "name",
    });
  }
  return runners;
}

function defaultCron(): NonNullable<RegisterScheduledTasksOptions["cron"]> {
  const deno = (globalThis as { Deno?: { cron?: (...args: unknown[]) => unknown } }).Deno;
  const cron = deno?.cron;
  if (deno === undefined) {
    throw denoOnlyError(
      "Deno.cron",
      "pass `cron` (your scheduler, e.g. node-cron) or call the returned handlers yourself; on Cloudflare Workers use createScheduledHandler",
    );
  }
  if (typeof cron !== "function") {
    throw new Error(
      "Cannot register scheduled tasks: Deno.cron is not available (run with --unstable-cron or add " +
        '"cron" to "unstable" in deno.json; on Cloudflare Workers use createScheduledHandler)',
    );
  }
  return (name, schedule, handler) => cron.call(deno, name, schedule, handler);
}

/**
 * Register the prune and retry-failed tasks with `Deno.cron` (call it at the top level of your main
 * module: Deno Deploy only picks up crons registered there). A task never overlaps itself: a run that
 * fires while the previous one is going is skipped, and with `kv` a lease keeps other isolates out too.
 * Returns the handlers, so they can also be run directly.
 *
 * @example Daily prune and retries every five minutes on Deno Deploy
 * ```ts
 * import { GatewayService, KvStore, registerScheduledTasks } from "@gw/gateway";
 * const kv = await Deno.openKv();
 * const store = new KvStore(kv);
 * const service = new GatewayService({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
 * registerScheduledTasks({
 *   service,
 *   store,
 *   kv,
 *   prune: { schedule: "0 3 * * *", days: 30 },
 *   retryFailed: { schedule: "*\/5 * * * *", maxRetries: 3 },
 * });
 * ```
 *
 * @example Calling the handlers in a test, with an injected cron
 * ```ts
 * import { MemoryStore, registerScheduledTasks } from "@gw/gateway";
 * import { type RetryService } from "@gw/gateway/tasks";
 * const service: RetryService = { getClient: () => ({ request: () => Promise.resolve({ data: {} }) }) };
 * const jobs: string[] = [];
 * const handlers = registerScheduledTasks({ service, store: new MemoryStore(), cron: (name) => jobs.push(name) });
 * console.log(jobs, await handlers.prune?.());
 * ```
 */
export function registerScheduledTasks(options: RegisterScheduledTasksOptions): ScheduledTaskHandlers {
  const deps = Promise.resolve({ service: options.service, store: options.store });
  const runners = buildRunners<void>(options, () => deps);
  const cron = options.cron ?? defaultCron();
  const handlers: ScheduledTaskHandlers = {};
  if (runners.prune) {
    const { name, schedule, run } = runners.prune;
    handlers.prune = () => run();
    cron(name, schedule, async () => {
      await run();
    });
  }
  if (runners.retryFailed) {
    const { name, schedule, run } = runners.retryFailed;
    handlers.retryFailed = () => run();
    cron(name, schedule, async () => {
      await run();
    });
  }
  if (runners.reconcileSends) {
    const { name, schedule, run } = runners.reconcileSends;
    handlers.reconcileSends = () => run();
    cron(name, schedule, async () => {
      await run();
    });
  }
  if (runners.reconcile) {
    const { name, schedule, run } = runners.reconcile;
    handlers.reconcile = () => run();
    cron(name, schedule, async () => {
      await run();
    });
  }
  log.info("Registered scheduled tasks: {tasks}", {
    tasks: listRunners(runners).map((r) => `${r.name} (${r.schedule})`),
  });
  return handlers;
}

/**
 * Build a Cloudflare Workers `scheduled` handler doing the same work: `controller.cron` picks the task
 * (the schedules must match the cron triggers in `wrangler.toml`), and the work is kept alive with
 * `ctx.waitUntil`. A cron that matches no task rejects, so a misconfigured trigger shows up as a failed
 * invocation. `service` and `store` may be functions of `env`, since Workers bindings arrive with the
 * event. Create the handler once, at module level, so the overlap guard sees every invocation.
 *
 * @example worker.ts
 * ```ts
 * import { createScheduledHandler, GatewayService, MemoryStore } from "@gw/gateway";
 * interface Env { GATEWAY_API_URL: string; GATEWAY_API_KEY: string }
 * const records = new MemoryStore(); // use a persistent GatewayStore in production
 * const worker = {
 *   scheduled: createScheduledHandler<Env>({
 *     store: records,
 *     service: (env) =>
 *       new GatewayService({ server_url: env.GATEWAY_API_URL, api_key: env.GATEWAY_API_KEY, store: records }),
 *     prune: { schedule: "0 3 * * *", days: 30 },
 *     retryFailed: { schedule: "*\/5 * * * *" },
 *   }),
 * };
 * // export default worker;  (the Worker's module export)
 * console.log(typeof worker.scheduled);
 * ```
 */
export function createScheduledHandler<Env = unknown>(
  options: ScheduledHandlerOptions<Env>,
): HandleScheduled<Env> {
  const runners = buildRunners<Env>(options, async (env) => ({
    service: typeof options.service === "function" ? await options.service(env) : options.service,
    store: typeof options.store === "function" ? await options.store(env) : options.store,
  }));
  return (controller, env, ctx) => {
    const cron = normalizeSchedule(controller.cron);
    const jobs = listRunners(runners).filter((runner) => normalizeSchedule(runner.schedule) === cron)
      .map((runner) => runner.run(env));
    if (jobs.length === 0) {
      const known = listRunners(runners).map((r) => `"${r.schedule}" (${r.name})`).join(", ");
      return Promise.reject(
        new Error(
          `Cannot run scheduled task: no task has the schedule "${controller.cron}" (known: ${
            known || "none"
          })`,
        ),
      );
    }
    const work = Promise.all(jobs).then(() => undefined);
    ctx.waitUntil(work);
    return work;
  };
}
