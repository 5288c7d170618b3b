/**
 * `serve`: the production receiver. `Deno.serve` with the webhook handler (inbound messages and webhook
 * logs recorded in the KV store), the KV queue worker when `queue.enabled`, and the scheduled prune and
 * retry-failed tasks (`Deno.cron`). SIGINT/SIGTERM shut it down gracefully: stop accepting, finish the
 * requests, queue jobs and task runs in flight, close the KV.
 *
 * @module
 */

import type { GatewayConfig } from "../config.ts";
import { DEFAULTS } from "../config.ts";
import { ConfigurationException, WebhookException } from "../errors.ts";
import type { GatewayService } from "../service.ts";
import { registerScheduledTasks } from "../tasks/schedule.ts";
import type { RetryService } from "../tasks/retry_failed.ts";
import { optionsFromFile, TASK_KEYS, WEBHOOK_KEYS } from "../config_keys.ts";
import { WEBHOOK_ENV_VARIABLES, type WebhookEnvOptions, webhookOptionsFromEnv } from "../webhooks/env.ts";
import { createWebhookHandler, type WebhookHandlerOptions } from "../webhooks/handler.ts";
import { WebhookProcessor } from "../webhooks/processor.ts";
import { isProcessWebhookJob, runWebhookJob } from "../webhooks/queue.ts";
import { booleanFlag, type FlagSpec, numberFlag, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand, runCommand } from "./command.ts";
import { type CliConfig, createService, loadCliConfig, type TasksFileConfig } from "./config.ts";
import { CliError, type CliIo, errorText, EXIT_OK, EXIT_USAGE } from "./io.ts";
import { openStore } from "./store.ts";

/** The environment variables `serve` reads on top of the common ones. */
export const SERVE_ENV_VARS: readonly string[] = Object.keys(WEBHOOK_ENV_VARIABLES);

function hasConnection(config: GatewayConfig): boolean {
  return Boolean(config.server_url || config.api_key || Object.keys(config.connections ?? {}).length > 0);
}

/** The file's `webhook` and `queue` sections (snake_case) as handler options, with the variables on top. */
function webhookSettings(
  cli: CliConfig,
  io: CliIo,
): { options: WebhookHandlerOptions; queue: boolean; maxAttempts?: number } {
  let env;
  try {
    env = webhookOptionsFromEnv((name) => io.env(name));
  } catch (error) {
    throw new CliError(errorText(error), EXIT_USAGE, { cause: error });
  }
  // The file's snake_case keys become options through the one settings table, as the variables do.
  const file = optionsFromFile(WEBHOOK_KEYS, cli.config) as WebhookEnvOptions;
  const { queue: fileQueue, signature: fileSignature, ...fileRest } = file;
  const { queue: envQueue, dedupe: _dedupe, signature: envSignature, ...envRest } = env;
  const options: WebhookHandlerOptions = {
    ...fileRest,
    ...envRest,
    signature: { ...fileSignature, ...envSignature },
  };
  const queue = envQueue?.enabled ?? fileQueue?.enabled ?? false;
  const maxAttempts = envQueue?.maxAttempts ?? fileQueue?.maxAttempts;
  return { options, queue, maxAttempts };
}

/**
 * The warning for a receiver that cannot verify anything, said at startup rather than at the first webhook
 * (the handler answers each one 503). The process cannot see a shell variable that was set without `export`:
 * when no secret is set at all, the line says to export it.
 */
function secretWarning(options: WebhookHandlerOptions, configPath: string): string | undefined {
  if (options.enabled === false) return undefined;
  const { scheme = "auto", secret } = options.signature ?? {};
  if (scheme === "none") return undefined;
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.some((item) => typeof item === "string" && item !== "")) return undefined;
  const what = secret === "" ? "the webhook secret is empty" : "no webhook secret is set";
  const hint = secret === undefined
    ? " If you set GATEWAY_WEBHOOK_SECRET in this shell, export it (export GATEWAY_WEBHOOK_SECRET=...): a " +
      "shell variable that is not exported does not reach the process."
    : "";
  return `warning: ${what}: set GATEWAY_WEBHOOK_SECRET, or webhook.secret in ${configPath} (${
    runCommand("install")
  } writes one); until then every webhook is answered 503 and the server retries it.${hint}\n`;
}

/** The file's `tasks` section as `registerScheduledTasks` options (camelCase, through the settings table). */
interface TaskFileOptions {
  prune?: { schedule?: string; days?: number };
  retryFailed?: { schedule?: string; maxRetries?: number; limit?: number; instance?: string };
  reconcileSends?: { schedule?: string; limit?: number; instance?: string; minAgeMs?: number };
  reconcile?: { schedule?: string; maxMessages?: number; instance?: string };
}

function reconcileOptions(tasks: TasksFileConfig, processor: WebhookProcessor, canReconcile: boolean) {
  if (tasks.reconcile === undefined || tasks.reconcile === false || !canReconcile) return false as const;
  const { instance, ...task } = (optionsFromFile(TASK_KEYS, tasks) as TaskFileOptions).reconcile ?? {};
  return { processor, ...task, instances: instance === undefined ? undefined : [instance] };
}

function taskOptions(tasks: TasksFileConfig, canRetry: boolean) {
  const options = optionsFromFile(TASK_KEYS, tasks) as TaskFileOptions;
  const prune = tasks.prune === false ? false as const : options.prune ?? {};
  const retryFailed = tasks.retry_failed === false || !canRetry ? false as const : options.retryFailed ?? {};
  const reconcileSends = tasks.reconcile_sends === false || !canRetry
    ? false as const
    : options.reconcileSends ?? {};
  return { prune, retryFailed, reconcileSends };
}

const FLAGS: Record<string, FlagSpec> = {
  port: { type: "string", value: "<n>", help: "port to listen on (default 8000; 0 picks a free one)" },
  hostname: {
    type: "string",
    value: "<host>",
    help: "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)",
  },
  "no-tasks": { type: "boolean", help: "do not register the scheduled tasks" },
};

/** The `serve` command. */
export class ServeCommand extends FlagCommand {
  constructor() {
    super({
      name: "serve",
      summary: "run the webhook receiver, queue worker and scheduled tasks",
      // Shuts down gracefully on SIGINT/SIGTERM.
      handlesSignals: true,
      flags: FLAGS,
      description:
        `Run the webhook receiver: POST /<webhook.route_prefix>/<instance> (default /${DEFAULTS.route_prefix}/<instance>),
GET /${DEFAULTS.route_prefix}/health. Webhooks are verified with webhook.secret / GATEWAY_WEBHOOK_SECRET
(every GATEWAY_WEBHOOK_* and GATEWAY_QUEUE_* variable overrides the file), redeliveries are dropped, and
inbound messages and webhook logs are recorded in the Deno KV store (created when missing), and connection.update webhooks
update the instance health that senders sharing that KV file see (their send breaker). With queue.enabled (or
GATEWAY_QUEUE_ENABLED=true) webhooks are answered 202 and processed by a KV queue worker in this process.
The prune task (default daily at 03:00 UTC, 30 days) and, when a connection is configured, the
retry-failed task (default every 5 minutes) run with Deno.cron, and tasks.reconcile (off unless given,
default every 15 minutes) recovers inbound messages whose webhooks were dropped; the "tasks" section of
the configuration changes them. A webhook body that has not arrived within webhook.body_timeout_ms
(GATEWAY_WEBHOOK_BODY_TIMEOUT_MS, default 10000) is answered 408. SIGINT or SIGTERM stops accepting
requests, finishes the work in flight and closes the store.`,
    });
  }

  /** Run until `io.signal` aborts (SIGINT/SIGTERM in a real process). */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const port = numberFlag(values, "port", { fallback: 8000, min: 0, integer: true });
    if (port > 65535) {
      throw new CliError(`Cannot parse arguments: "--port" must be at most 65535, got "${port}"`, EXIT_USAGE);
    }
    const hostname = stringFlag(values, "hostname") ?? "127.0.0.1";
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const webhook = webhookSettings(cli, io);
    const service: GatewayService | undefined = hasConnection(cli.config) ? createService(cli) : undefined;
    const runtime = new ServeRuntime(await openStore(cli, { mustExist: false }));
    let server: Deno.HttpServer;
    try {
      // With the store, the processor records connection.update webhooks in the instance health every
      // sender sharing this KV file sees (besides inbound records, @lid pairs and statuses).
      const processor = new WebhookProcessor({
        store: runtime.opened.store,
        connection: service?.getConnectionName() ?? "default",
      });
      const metrics = service?.getMetrics();
      const handler = runtime.startHandler(webhook, processor, metrics);
      const warning = secretWarning(webhook.options, cli.path);
      if (warning !== undefined) io.stderr(warning);
      if (webhook.queue) runtime.startQueueWorker(processor, { metrics, maxAttempts: webhook.maxAttempts });
      const schedules = booleanFlag(values, "no-tasks")
        ? undefined
        : runtime.scheduleTasks(cli.tasks, service, processor);
      server = await runtime.listen({ port, hostname }, handler, webhook, io);
      io.stdout(
        `Store: ${runtime.opened.path}; queue: ${webhook.queue ? "on" : "off"}; tasks: ${
          schedules === undefined ? "off" : schedules.join(", ") || "none"
        }\n`,
      );
    } catch (error) {
      await runtime.server?.shutdown();
      await runtime.cleanup();
      throw error;
    }

    await waitForAbort(io.signal);
    io.stdout("Shutting down: finishing requests in flight\n");
    await server.shutdown();
    runtime.draining = true;
    await runtime.cleanup();
    io.stdout("Stopped\n");
    return EXIT_OK;
  }
}

type WebhookSettings = ReturnType<typeof webhookSettings>;
type OpenedStore = Awaited<ReturnType<typeof openStore>>;

/**
 * What a running `serve` owns: the store, the handler, the queue worker, the cron tasks and the server.
 * `cleanup` undoes all of it, after a failed start as after a shutdown.
 */
class ServeRuntime {
  readonly cronController = new AbortController();
  /** Task runs in flight. */
  readonly running = new Set<Promise<unknown>>();
  inFlightJobs = 0;
  /** Set on shutdown: the queue worker refuses new deliveries. */
  draining = false;
  drained: (() => void) | undefined;
  worker: Promise<void> | undefined;
  server: Deno.HttpServer | undefined;
  handler: ReturnType<typeof createWebhookHandler> | undefined;

  constructor(readonly opened: OpenedStore) {}

  /** The webhook handler; a configuration it refuses is a usage error. */
  startHandler(
    webhook: WebhookSettings,
    processor: WebhookProcessor,
    metrics: ReturnType<GatewayService["getMetrics"]> | undefined,
  ): ReturnType<typeof createWebhookHandler> {
    const { kv, store } = this.opened;
    try {
      this.handler = createWebhookHandler({
        ...webhook.options,
        processor,
        store,
        metrics: metrics ?? undefined,
        dedupe: { kv },
        queue: webhook.queue ? { enabled: true, mode: "kv", kv, maxAttempts: webhook.maxAttempts } : false,
      });
    } catch (error) {
      if (error instanceof WebhookException || error instanceof ConfigurationException) {
        throw new CliError(errorText(error), EXIT_USAGE, { cause: error });
      }
      throw error;
    }
    return this.handler;
  }

  /** The KV queue worker of this process; counts the jobs in flight so shutdown can wait for them. */
  startQueueWorker(
    processor: WebhookProcessor,
    options: { metrics: ReturnType<GatewayService["getMetrics"]> | undefined; maxAttempts?: number },
  ): void {
    const { kv, store } = this.opened;
    const jobOptions = { store, metrics: options.metrics, maxAttempts: options.maxAttempts };
    this.worker = kv.listenQueue(async (message: unknown) => {
      // While draining, refuse new deliveries: KV keeps the job and delivers it after the restart.
      if (this.draining) throw new Error("Shutting down: job left on the queue");
      if (!isProcessWebhookJob(message)) return;
      this.inFlightJobs++;
      try {
        await runWebhookJob(kv, message, processor, jobOptions);
      } finally {
        if (--this.inFlightJobs === 0 && this.draining) this.drained?.();
      }
    });
  }

  /** Register the scheduled tasks with `Deno.cron`; returns them as `name (schedule)`. */
  scheduleTasks(
    tasks: TasksFileConfig,
    service: GatewayService | undefined,
    processor: WebhookProcessor,
  ): string[] {
    const { kv, store } = this.opened;
    const schedules: string[] = [];
    const { prune, retryFailed, reconcileSends } = taskOptions(tasks, service !== undefined);
    const cron = (name: string, schedule: string, run: () => Promise<void>) => {
      try {
        Deno.cron(name, schedule, { signal: this.cronController.signal }, () => {
          const task = run();
          this.running.add(task);
          return task.finally(() => this.running.delete(task));
        });
      } catch (error) {
        throw new Error(`${errorText(error)}: "${schedule}" for "${name}"`, { cause: error });
      }
      schedules.push(`${name} (${schedule})`);
    };
    try {
      registerScheduledTasks({
        service: service ?? (NO_SERVICE as RetryService),
        store,
        kv,
        prune,
        retryFailed,
        reconcileSends,
        reconcile: reconcileOptions(tasks, processor, service !== undefined),
        cron,
      });
    } catch (error) {
      throw new CliError(`Cannot schedule tasks: ${errorText(error)}`, EXIT_USAGE, { cause: error });
    }
    return schedules;
  }

  /** Start the server and say where it listens. */
  async listen(
    at: { port: number; hostname: string },
    handler: ReturnType<typeof createWebhookHandler>,
    webhook: WebhookSettings,
    io: CliIo,
  ): Promise<Deno.HttpServer> {
    const listening = Promise.withResolvers<Deno.NetAddr>();
    this.server = Deno.serve({
      ...at,
      onListen: (address) => listening.resolve(address as Deno.NetAddr),
      onError: () => new Response('{"ok":false,"error":"Internal Server Error"}', { status: 500 }),
    }, handler);
    const address = await listening.promise;
    const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
    const prefix = (webhook.options.routePrefix ?? DEFAULTS.route_prefix).replace(/^\/+|\/+$/g, "");
    io.stdout(`Listening on http://${host}:${address.port}/ (webhooks: POST /${prefix}/<instance>)\n`);
    return this.server;
  }

  /** Stop the tasks, wait for the work in flight, close the store, the worker and the handler. */
  async cleanup(): Promise<void> {
    this.cronController.abort();
    await Promise.allSettled(this.running);
    if (this.inFlightJobs > 0) await new Promise<void>((resolve) => this.drained = resolve);
    this.opened.close();
    await this.worker?.catch(() => {});
    await this.handler?.close();
  }
}

/** Stands in for the service when no connection is configured (the retry task is then not registered). */
const NO_SERVICE = {
  getClient(): never {
    throw new Error("Cannot resend messages: no connection is configured");
  },
};

function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
