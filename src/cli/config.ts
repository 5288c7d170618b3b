/**
 * Configuration for CLI commands: `gateway-api.json` in the working directory (or `--config path`) merged
 * with the `GATEWAY_*` environment variables, which win. Adds the CLI's own sections, which the library
 * ignores: where the Deno KV file is (`kv.path` / `GATEWAY_KV_PATH`) and the schedules of `serve` (`tasks`).
 *
 * @module
 */

import {
  CONFIG_FILE,
  configFromEnv,
  type GatewayConfig,
  loadConfigFile,
  mergeConfig,
  mergeEnvConfig,
  serviceConfig,
} from "../config.ts";
import { CLI_KEYS, CONNECTION_KEYS, envVariables, variableOf } from "../config_keys.ts";
import { GatewayException } from "../errors.ts";
import { GatewayService } from "../service.ts";
import { inCheckout } from "./command.ts";
import { CliError, type CliIo, EXIT_USAGE, isPermissionError, resolvePath } from "./io.ts";

/** The environment variables every command reads (`serve` adds the `GATEWAY_WEBHOOK_*` ones). */
export const CLI_ENV_VARS: readonly string[] = Object.keys(envVariables([...CONNECTION_KEYS, ...CLI_KEYS]));

/** Default Deno KV file of `prune`, `retry-failed` and `serve`. */
export const DEFAULT_KV_PATH = "gateway.kv";

/** The `kv` section of `gateway-api.json` (read by the CLI only). */
export interface KvFileConfig {
  /** Path of the Deno KV (SQLite) file, relative to the working directory. */
  path?: string;
}

/** The `tasks` section of `gateway-api.json`: the schedules `serve` registers (read by the CLI only). */
export interface TasksFileConfig {
  /** The prune task, or false to leave it out. */
  prune?: false | { schedule?: string; days?: number };
  /** The retry-failed task, or false to leave it out. */
  retry_failed?: false | { schedule?: string; max_retries?: number; limit?: number; instance?: string };
  /** The reconcile-sends task, or false to leave it out. */
  reconcile_sends?: false | { schedule?: string; limit?: number; instance?: string; min_age_ms?: number };
  /** The reconcile task (off unless given): recover inbound messages whose webhooks were dropped. */
  reconcile?: false | { schedule?: string; max_messages?: number; instance?: string };
}

/** The configuration a command works with. */
export interface CliConfig {
  /** The merged library configuration (file, then environment), without the CLI-only `kv` section. */
  config: GatewayConfig;
  /** The configuration file looked at. */
  path: string;
  /** Whether that file exists. */
  fileFound: boolean;
  /** The Deno KV file: `GATEWAY_KV_PATH`, else `kv.path`, else `gateway.kv`. */
  kvPath: string;
  /** `kvPath` resolved against the io's working directory: the file opened. */
  kvFile: string;
  /** Whether a KV path was configured explicitly (file or environment). */
  kvConfigured: boolean;
  /** The `tasks` section (empty when absent). */
  tasks: TasksFileConfig;
}

/**
 * Read the configuration: a missing `--config` file, an unreadable file, invalid JSONC, an unknown key or a
 * bad value is a {@link CliError} with exit code 2. A missing default file is fine (the environment may be enough).
 */
export async function loadCliConfig(io: CliIo, configPath: string | undefined): Promise<CliConfig> {
  const path = configPath ?? CONFIG_FILE;
  const resolved = resolvePath(io, path);
  let file: GatewayConfig | null;
  try {
    file = await loadConfigFile(resolved);
  } catch (error) {
    // loadConfigFile wraps Deno's permission error: look at its cause too.
    if (isPermissionError(error) || (error instanceof Error && isPermissionError(error.cause))) {
      throw unreadable(path, error);
    }
    // The message names the file as the user wrote it, not as resolved against the working directory.
    const named = configError(error);
    named.message = named.message.replaceAll(`"${resolved}"`, `"${path}"`);
    throw named;
  }
  if (file === null && configPath !== undefined) {
    throw new CliError(`Cannot read configuration: "${path}" does not exist`, EXIT_USAGE);
  }
  const { kv, tasks } = (file ?? {}) as { kv?: KvFileConfig; tasks?: TasksFileConfig };
  const kvFile = kv ?? {};
  let env: GatewayConfig;
  try {
    env = configFromEnv((name) => io.env(name));
  } catch (error) {
    throw configError(error);
  }
  const fileConfig = serviceConfig(file ?? {});
  const config = mergeEnvConfig(fileConfig, env);
  const envKv = io.env(variableOf(CLI_KEYS[0]));
  const kvPath = envKv || kvFile.path || DEFAULT_KV_PATH;
  return {
    config,
    path,
    fileFound: file !== null,
    kvPath,
    kvFile: resolvePath(io, kvPath),
    kvConfigured: Boolean(envKv || kvFile.path),
    tasks: tasks ?? {},
  };
}

/** Build the service from the configuration; no connection configured, or an invalid one, is exit code 2. */
export function createService(cli: CliConfig, overrides: GatewayConfig = {}): GatewayService {
  const config = mergeConfig(cli.config, overrides);
  if (!config.server_url && !config.api_key && Object.keys(config.connections ?? {}).length === 0) {
    const where = cli.fileFound
      ? `"${cli.path}" has no "server_url" or "connections"`
      : `no "${cli.path}" found`;
    throw new CliError(
      `Cannot configure gateway: ${where} and GATEWAY_API_URL is not set (run the "install" command to create one)`,
      EXIT_USAGE,
    );
  }
  try {
    return new GatewayService(config);
  } catch (error) {
    throw configError(error);
  }
}

/** The tasks may read the project directory only: say how to use a file elsewhere. */
function unreadable(path: string, error: unknown): CliError {
  return new CliError(
    `Cannot read configuration "${path}": not allowed by --allow-read (${
      inCheckout() ? "the deno tasks read" : "the package command reads"
    } files in the project directory only; for a file elsewhere run "deno run" with --allow-read=${path}, ` +
      "see docs/cli.md)",
    EXIT_USAGE,
    { cause: error },
  );
}

function configError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof GatewayException && error.cause instanceof Error &&
      !message.includes(error.cause.message)
    ? `: ${error.cause.message}`
    : "";
  return new CliError(`${message}${cause}`, EXIT_USAGE, { cause: error });
}

/** The connection to use: `name` when given (unknown is exit code 2), else the configured default. */
export function selectConnection(gw: GatewayService, name: string | undefined): string {
  const names = gw.getConnectionManager().getConnectionNames();
  const chosen = name ?? gw.getConnectionName();
  if (!names.includes(chosen)) {
    const known = names.map((item) => `"${item}"`).join(", ") || "none";
    throw new CliError(`Unknown connection "${chosen}" (configured: ${known})`, EXIT_USAGE);
  }
  return chosen;
}
