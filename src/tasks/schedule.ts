/**
 * Running `pruneOldRecords`, `retryFailedMessages`, `reconcileSends` and `reconcileInboundMessages` on a schedule: `registerScheduledTasks` with
 * `Deno.cron` (Deno CLI, Deno Deploy), `createScheduledHandler` for a Cloudflare Workers `scheduled`
 * export (cron triggers in `wrangler.toml`).
 *
 * @module
 */

import { ConfigurationException } from "../errors.ts";
import { denoOnlyError } from "../runtime.ts";
import { getGatewayLogger } from "../log.ts";
import { MAX_TIMER_MS } from "../util/timers.ts";
import { nonNegativeInteger, numberSetting } from "../util/checks.ts";
import type { GatewayStore } from "../store/store.ts";
import type { ReconcileInboundResult } from "../delivery/reconcile.ts";
import { checkPruneOptions, pruneOldRecords, type PruneResult } from "./prune.ts";
import { reconcileSends, type ReconcileSendsResult } from "./reconcile_sends.ts";
import { retryFailedMessages, type RetryFailedResult, type RetryService } from "./retry_failed.ts";
import { kvTaskLease } from "../backends/kv/lease.ts";
import { guardTask } from "./task_guard.ts";
import type { TaskLease } from "./task_lease.ts";
import { RECONCILE_NAME, RECONCILE_SCHEDULE, runReconcileTask } from "./reconcile_task.ts";
import type {
  HandleScheduled,
  RegisterScheduledTasksOptions,
  ScheduledHandlerOptions,
  ScheduledTaskHandlers,
  ScheduledTasksBaseOptions,
} from "./schedule_options.ts";

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
    nonNegativeInteger("Cannot schedule tasks", `${taskName}.${name}`, task[name], 0);
  }
  if (task.instance !== undefined && (typeof task.instance !== "string" || task.instance.trim() === "")) {
    throw new ConfigurationException(
      `Cannot schedule tasks: "${taskName}.instance" must be a non-empty string when given`,
      { setting: `${taskName}.instance` },
    );
  }
}

type RunnerOptions<Env> = Omit<ScheduledTasksBaseOptions, "lease"> & {
  lease?: TaskLease | ((env: Env) => TaskLease);
};

/** What every runner shares: where the service and store come from, the lease, the clock. */
interface RunnerContext<Env> {
  resolve: (env: Env) => Promise<{ service: RetryService; store: GatewayStore }>;
  lease: TaskLease | ((env: Env) => TaskLease) | undefined;
  leaseMs: number;
  now: ScheduledTasksBaseOptions["now"];
}

function buildRunners<Env>(
  options: RunnerOptions<Env>,
  resolve: (env: Env) => Promise<{ service: RetryService; store: GatewayStore }>,
): Runners<Env> {
  const context: RunnerContext<Env> = {
    resolve,
    lease: options.lease ??
      (options.kv === undefined ? undefined : kvTaskLease(options.kv, undefined, options.now)),
    leaseMs: numberSetting("Cannot schedule tasks", "leaseMs", options.leaseMs, LEASE_MS, {
      integer: true,
      max: MAX_TIMER_MS,
      unit: "ms",
    }),
    now: options.now,
  };
  const runners: Runners<Env> = {};
  if (options.prune !== false) runners.prune = pruneRunner(context, options.prune ?? {});
  if (options.retryFailed !== false) runners.retryFailed = retryRunner(context, options.retryFailed ?? {});
  if (options.reconcileSends !== false) {
    runners.reconcileSends = reconcileSendsRunner(context, options.reconcileSends ?? {});
  }
  if (options.reconcile !== undefined && options.reconcile !== false) {
    runners.reconcile = reconcileRunner(context, options.reconcile);
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

/** A runner whose runs are guarded by the lease (one run at a time across processes). */
function guardedRunner<Env, T>(
  context: RunnerContext<Env>,
  name: string,
  schedule: string,
  run: (env: Env) => Promise<T>,
): Runner<Env, T> {
  return { name, schedule, run: guardTask(name, run, context.lease, context.leaseMs) };
}

function pruneRunner<Env>(
  context: RunnerContext<Env>,
  task: Exclude<RunnerOptions<Env>["prune"], false | undefined>,
): Runner<Env, PruneResult> {
  const days = task.days ?? 30;
  checkPruneOptions(days, task.kinds);
  return guardedRunner(
    context,
    task.name ?? PRUNE_NAME,
    task.schedule ?? PRUNE_SCHEDULE,
    async (env: Env) => {
      const { store } = await context.resolve(env);
      return await pruneOldRecords({ store, days, kinds: task.kinds, now: context.now });
    },
  );
}

function retryRunner<Env>(
  context: RunnerContext<Env>,
  task: Exclude<RunnerOptions<Env>["retryFailed"], false | undefined>,
): Runner<Env, RetryFailedResult> {
  checkTask("retryFailed", task, ["limit", "maxRetries"]);
  return guardedRunner(
    context,
    task.name ?? RETRY_NAME,
    task.schedule ?? RETRY_SCHEDULE,
    async (env: Env) => {
      const { service, store } = await context.resolve(env);
      return await retryFailedMessages({
        service,
        store,
        maxRetries: task.maxRetries,
        limit: task.limit,
        instance: task.instance,
        now: context.now,
      });
    },
  );
}

function reconcileSendsRunner<Env>(
  context: RunnerContext<Env>,
  task: Exclude<RunnerOptions<Env>["reconcileSends"], false | undefined>,
): Runner<Env, ReconcileSendsResult> {
  checkTask("reconcileSends", task, ["limit", "minAgeMs"]);
  const name = task.name ?? RECONCILE_SENDS_NAME;
  return guardedRunner(context, name, task.schedule ?? RECONCILE_SENDS_SCHEDULE, async (env: Env) => {
    const { service, store } = await context.resolve(env);
    return await reconcileSends({
      service,
      store,
      limit: task.limit,
      instance: task.instance,
      minAgeMs: task.minAgeMs,
      now: context.now,
    });
  });
}

function reconcileRunner<Env>(
  context: RunnerContext<Env>,
  task: Exclude<RunnerOptions<Env>["reconcile"], false | undefined>,
): Runner<Env, ReconcileInboundResult> {
  const processor = task.processor;
  if (processor === undefined || typeof processor.process !== "function") {
    throw new ConfigurationException(
      "Cannot schedule the reconcile task: give it the processor that runs your handlers (reconcile.processor)",
      { setting: "reconcile.processor" },
    );
  }
  const name = task.name ?? RECONCILE_NAME;
  return guardedRunner(context, name, task.schedule ?? RECONCILE_SCHEDULE, async (env: Env) => {
    const { service, store } = await context.resolve(env);
    return await runReconcileTask(task, service, store, processor, context.now);
  });
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
 * import { GatewayService, KvStore } from "@gw/gateway";
 * import { registerScheduledTasks } from "@gw/gateway/tasks";
 * const kv = await Deno.openKv();
 * const store = new KvStore(kv);
 * const service = GatewayService.make({ server_url: "http://127.0.0.1:8080", api_key: "k", store });
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
 * import { MemoryStore } from "@gw/gateway";
 * import { registerScheduledTasks } from "@gw/gateway/tasks";
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
 * import { GatewayService, MemoryStore } from "@gw/gateway";
 * import { createScheduledHandler } from "@gw/gateway/tasks";
 * interface Env { GATEWAY_API_URL: string; GATEWAY_API_KEY: string }
 * const records = new MemoryStore(); // use a persistent GatewayStore in production
 * const worker = {
 *   scheduled: createScheduledHandler<Env>({
 *     store: records,
 *     service: (env) =>
 *       GatewayService.make({ server_url: env.GATEWAY_API_URL, api_key: env.GATEWAY_API_KEY, store: records }),
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
