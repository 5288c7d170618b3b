/**
 * `health`: per connection, whether the server is reachable, the key accepted, and the instances' states.
 *
 * @module
 */

import { AuthenticationException, InstanceNotFoundException } from "../errors.ts";
import type { GatewayService } from "../service.ts";
import type { InstancesResource } from "../resources/instances.ts";
import {
  booleanFlag,
  type FlagSpec,
  numberFlag,
  type ParsedFlags,
  stringFlag,
  TIMEOUT_MS_FLAG,
} from "./args.ts";
import { FlagCommand, runCommand } from "./command.ts";
import { createService, loadCliConfig, selectConnection } from "./config.ts";
import { type CliIo, errorText, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { readLiveStates } from "./live_state.ts";
import { Spinner } from "./progress.ts";
import { openStore } from "./store.ts";
import { colors, renderTable, writeJson } from "./table.ts";

/** One instance as `health` reports it. */
export interface InstanceHealthRow {
  /** Instance name. */
  name: string;
  /** `open`, `connecting`, `close`, or what the server reported (null when it reported none). */
  state: string | null;
  /**
   * The library's health of the instance (`open`, `connecting`, `suspect`, `closed`, `banned`), from the
   * state just read and what senders sharing the store saw; null when unknown.
   */
  health: string | null;
  /** The send breaker: `closed`, `open` or `half_open`; null when unknown. */
  breaker: string | null;
  /** The last disconnect reason's name (`logged_out`, `forbidden`, ...), or null. */
  reason: string | null;
}

/** The result for one connection. */
export interface ConnectionHealth {
  /** Connection name. */
  name: string;
  /** Its server URL. */
  serverUrl: string;
  /** Reachable, key accepted and, when the connection names an instance, that instance exists. */
  ok: boolean;
  /** Whether `GET /` answered with a 2xx. */
  reachable: boolean;
  /** Server version from `GET /`, or null. */
  version: string | null;
  /** Time of the `GET /` call in whole ms, or null when unreachable. */
  latencyMs: number | null;
  /** Whether an authenticated call succeeded; null when not tried (server unreachable). */
  authorized: boolean | null;
  /** The connection's default instance, or null. */
  instance: string | null;
  /** The instances the key can see. */
  instances: InstanceHealthRow[];
  /** Why the connection failed, or null. */
  error: string | null;
}

/** What `health --json` prints. */
export interface HealthReport {
  /** True when every connection checked is ok. */
  ok: boolean;
  /** One entry per connection checked, in configuration order. */
  connections: ConnectionHealth[];
}

const message = errorText;

function rowsToInstances(data: unknown): InstanceHealthRow[] {
  if (!Array.isArray(data)) return [];
  return data.map((row) => {
    const record = (row ?? {}) as Record<string, unknown>;
    const name = record.name ?? (record.instance as Record<string, unknown> | undefined)?.instanceName;
    const state = record.connectionStatus ?? (record.instance as Record<string, unknown> | undefined)?.status;
    return {
      name: String(name ?? ""),
      state: typeof state === "string" ? state : null,
      health: null,
      breaker: null,
      reason: null,
    };
  });
}

/** Fill in each instance's health from the service's (store-shared) health records. */
async function addHealth(gw: GatewayService, connection: string, rows: InstanceHealthRow[]): Promise<void> {
  const records = new Map(
    (await gw.health().list({ connection })).map((record) => [record.instance, record]),
  );
  for (const row of rows) {
    const record = records.get(row.name);
    if (!record || record.status === "unknown") continue;
    row.health = record.status;
    row.breaker = record.breaker;
    row.reason = record.reason?.name ?? null;
  }
}

/**
 * Check one connection: `GET /` (reachability, version, latency), then `GET /instance/fetchInstances`
 * (key and instances). A key that is an instance token may be refused on `fetchInstances` by servers that
 * do not keep instance data; then `GET /instance/connectionState/<instance>` decides, when the connection
 * names an instance. Never throws.
 */
export async function checkConnection(
  gw: GatewayService,
  name: string,
  timeoutMs: number,
): Promise<ConnectionHealth> {
  const connection = gw.getConnectionManager().getConnection(name);
  const result: ConnectionHealth = {
    name,
    serverUrl: connection.server_url,
    ok: false,
    reachable: false,
    version: null,
    latencyMs: null,
    authorized: null,
    instance: connection.instance ?? null,
    instances: [],
    error: null,
  };
  const view = gw.connection(name);
  const started = performance.now();
  try {
    const info = await view.info({ timeoutMs, maxRetries: 0 });
    result.latencyMs = Math.round(performance.now() - started);
    result.reachable = true;
    result.version = typeof info.version === "string" ? info.version : null;
  } catch (error) {
    result.error = message(error);
    return result;
  }
  const instances = view.instances();
  try {
    const response = await instances.fetchAll({ timeoutMs, maxRetries: 0 });
    result.authorized = true;
    result.instances = rowsToInstances(response.data);
  } catch (error) {
    if (!(error instanceof AuthenticationException) || result.instance === null) {
      result.authorized = error instanceof AuthenticationException ? false : null;
      result.error = error instanceof AuthenticationException
        ? `api key was refused: ${message(error)}`
        : message(error);
      return result;
    }
    if (!await checkInstanceToken(instances, result, result.instance, timeoutMs)) return result;
  }
  try {
    // The state connect and status see, not the stored row's; then the health recorded for it.
    await readLiveStates(gw, name, result.instances, timeoutMs);
    await addHealth(gw, name, result.instances);
  } catch {
    // Live state and health are extra information: a failure leaves the listed rows as they are.
  }
  if (result.instance !== null && !result.instances.some((item) => item.name === result.instance)) {
    result.error = missingInstance(result.instance);
    return result;
  }
  result.ok = true;
  return result;
}

/**
 * A key refused on `fetchInstances` may be an instance token, accepted on the instance's own routes: ask
 * its `connectionState`. False (with the error set) when that is refused too.
 */
async function checkInstanceToken(
  instances: InstancesResource,
  result: ConnectionHealth,
  instance: string,
  timeoutMs: number,
): Promise<boolean> {
  try {
    const response = await instances.connectionState(instance, { timeoutMs, maxRetries: 0 });
    const state = (response.data as { instance?: { state?: unknown } } | null)?.instance?.state;
    result.authorized = true;
    result.instances = [{
      name: instance,
      state: typeof state === "string" ? state : null,
      health: null,
      breaker: null,
      reason: null,
    }];
    return true;
  } catch (error) {
    result.authorized = error instanceof AuthenticationException ? false : null;
    result.error = error instanceof AuthenticationException
      ? `api key was refused: ${message(error)}`
      : error instanceof InstanceNotFoundException
      ? missingInstance(instance)
      : message(error);
    return false;
  }
}

/** The configured instance is not on the server: say so, with the command that creates it. */
function missingInstance(instance: string): string {
  return `instance "${instance}" does not exist on the server (create it: ${
    runCommand(`create ${instance}`)
  })`;
}

const FLAGS: Record<string, FlagSpec> = {
  connection: { type: "string", value: "<name>", help: "check only this connection" },
  timeout: TIMEOUT_MS_FLAG,
  json: { type: "boolean", help: "print a JSON report instead of a table" },
};

/** The `health` command. */
export class HealthCommand extends FlagCommand {
  constructor() {
    super({
      name: "health",
      summary: "check that every connection is reachable and its key accepted",
      flags: FLAGS,
      description:
        `For each configured connection (or the one named): is the server reachable (GET /: version and
latency), is the api key accepted (GET /instance/fetchInstances), and which instances exist in which
state, with the library's health of each (suspect, banned, the send breaker) when the KV file holds
what senders recorded. When a connection names a default instance, that instance must exist. Exit code 1
when any connection fails.`,
    });
  }

  /** Check each connection and print the report. */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const timeoutMs = numberFlag(values, "timeout", { fallback: 10_000, integer: true });
    const only = stringFlag(values, "connection");
    const json = booleanFlag(values, "json");
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    // With a KV file, the health that senders recorded there (suspect, banned, breaker) is shown too.
    const opened = await openStore(cli, { mustExist: true }).catch(() => undefined);
    const spinner = new Spinner(io, "Checking connections");
    let connections: ConnectionHealth[];
    try {
      const gw = createService(cli, opened ? { store: opened.store } : {});
      const names = only === undefined
        ? gw.getConnectionManager().getConnectionNames()
        : [selectConnection(gw, only)];
      spinner.start();
      connections = await Promise.all(names.map((name) => checkConnection(gw, name, timeoutMs)));
    } finally {
      spinner.stop();
      // Also when the service cannot be built: the KV file must not stay open.
      opened?.close();
    }
    const report: HealthReport = { ok: connections.every((item) => item.ok), connections };
    if (json) writeJson(io, report);
    else io.stdout(renderHealth(report, io.color));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  }
}

/** `sales (open)`, or with the library's view when it differs: `sales (open, suspect, breaker open)`. */
export function describeInstance(item: InstanceHealthRow): string {
  const state = item.state ?? "?";
  const same = item.health === null || item.health === state ||
    (item.health === "closed" && state === "close");
  const extra = same && (item.breaker === null || item.breaker === "closed")
    ? ""
    : `, ${item.health ?? "?"}${item.reason ? ` (${item.reason})` : ""}, breaker ${item.breaker ?? "?"}`;
  return `${item.name} (${state}${extra})`;
}

/** The text report of `health`: a table, one line per failure, a summary. */
export function renderHealth(report: HealthReport, color: boolean): string {
  const paint = colors(color);
  const rows = report.connections.map((item) => [
    item.name,
    item.serverUrl,
    item.reachable ? "yes" : "no",
    item.version,
    item.latencyMs === null ? null : `${item.latencyMs} ms`,
    item.authorized === null ? null : item.authorized ? "accepted" : "refused",
    item.authorized ? item.instances.map(describeInstance).join(", ") || "none" : null,
    item.ok ? paint.green("ok") : paint.red("FAILED"),
  ]);
  let text = renderTable([
    "CONNECTION",
    "SERVER",
    "REACHABLE",
    "VERSION",
    "LATENCY",
    "KEY",
    "INSTANCES",
    "RESULT",
  ], rows);
  const failed = report.connections.filter((item) => !item.ok);
  for (const item of failed) text += `${item.name}: ${item.error}\n`;
  const total = report.connections.length;
  text += failed.length === 0
    ? `${total} connection${total === 1 ? "" : "s"} healthy\n`
    : `${failed.length} of ${total} connection${total === 1 ? "" : "s"} failed\n`;
  return text;
}
