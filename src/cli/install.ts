/**
 * `install`: write a starter `gateway-api.json` and print the next steps.
 *
 * @module
 */

import { CONFIG_FILE, DEFAULTS } from "../config.ts";
import { InstanceNotFoundException } from "../errors.ts";
import { generateWebhookSecret } from "../webhooks/signature.ts";
import { booleanFlag, type FlagSpec, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand, runCommand } from "./command.ts";
import { DEFAULT_KV_PATH } from "./config.ts";
import { CliError, type CliIo, EXIT_FAILED, EXIT_OK, resolvePath, UsageError } from "./io.ts";
import { writeJson } from "./table.ts";

const DEFAULT_SERVER_URL = "http://localhost:8080";

/** Events the next steps suggest subscribing to. */
const SUGGESTED_EVENTS = ["MESSAGES_UPSERT", "MESSAGES_UPDATE", "CONNECTION_UPDATE", "QRCODE_UPDATED"];

/** What `install --json` prints. */
export interface InstallReport {
  /** The file written. */
  path: string;
  /** True when an existing file was replaced (`--force`). */
  overwritten: boolean;
  /** Server URL written. */
  serverUrl: string;
  /** Whether an api key was written (the key itself is never printed). */
  apiKeyWritten: boolean;
  /** Default instance written, or null. */
  instance: string | null;
  /** The URL to configure as the instance's webhook. */
  webhookUrl: string;
  /** True when the instance's webhook was configured on the server (`--secure-webhook`). */
  webhookConfigured: boolean;
  /** The next steps, one per line. */
  nextSteps: string[];
}

const FLAGS: Record<string, FlagSpec> = {
  "server-url": {
    type: "string",
    value: "<url>",
    help: `gateway server URL (default ${DEFAULT_SERVER_URL})`,
  },
  "api-key": {
    type: "string",
    value: "<key>",
    help: "api key; leave out to provide GATEWAY_API_KEY at run time instead",
  },
  instance: { type: "string", value: "<name>", help: "default instance" },
  "public-url": {
    type: "string",
    value: "<url>",
    help: "this receiver's public base URL, to print the exact webhook URL",
  },
  "secure-webhook": {
    type: "boolean",
    help: "also configure the instance's webhook on the server, signed with the written secret " +
      "(webhooks().secure; needs --api-key, --instance and --public-url); asked for on a terminal",
  },
  force: { type: "boolean", help: "replace an existing file" },
  json: { type: "boolean", help: "print a JSON report instead of text" },
};

/**
 * The `install` command.
 *
 * @example
 * ```ts
 * import { InstallCommand } from "./install.ts";
 * import { memoryIo } from "./io.ts";
 * await new InstallCommand().run(["--server-url", "http://localhost:8080", "--api-key", "k"], memoryIo());
 * ```
 */
export class InstallCommand extends FlagCommand {
  constructor() {
    super({
      name: "install",
      summary: "write a starter gateway-api.json and print the next steps",
      flags: FLAGS,
      description:
        `Write a starter ${CONFIG_FILE} (or --config <path>) with the server, key, default instance, a generated
webhook secret and the KV file path, then print the next steps. Prompts for missing values when standard
input is a terminal. Never replaces an existing file unless --force is given. The file holds secrets: it is
written with mode 0600; keep it out of version control.`,
    });
  }

  /** Write the configuration file (and the webhook, with --secure-webhook) and print the next steps. */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const path = stringFlag(values, "config") ?? CONFIG_FILE;
    const force = booleanFlag(values, "force");
    const json = booleanFlag(values, "json");
    const file = resolvePath(io, path);
    // Fail before prompting when the file is there and --force is not.
    if (!force && await exists(file)) throw refuse(path);

    const answers = await askAnswers(values, io, io.stdinIsTerminal && !json);
    const { serverUrl, apiKey, instance, publicUrl, secureWebhook } = answers;
    const starter = starterConfig(answers);
    const overwritten = force && await exists(file);
    await writeStarter({ path, file }, starter, force);

    const base = publicUrl ? publicUrl.replace(/\/+$/, "") : "<your public URL>";
    const webhookUrl = `${base}/${DEFAULTS.route_prefix}/${instance ?? "<instance>"}`;
    if (secureWebhook) {
      await configureWebhook(serverUrl, apiKey!, instance!, webhookUrl, starter.webhook.secret);
    }
    const steps = nextSteps(answers, webhookUrl, path);
    if (json) {
      const report: InstallReport = {
        path,
        overwritten,
        serverUrl,
        apiKeyWritten: Boolean(apiKey),
        instance: instance ?? null,
        webhookUrl,
        webhookConfigured: secureWebhook,
        nextSteps: steps,
      };
      writeJson(io, report);
      return EXIT_OK;
    }
    io.stdout(
      `${overwritten ? "Replaced" : "Wrote"} ${path} (server ${serverUrl}` +
        `${instance ? `, instance "${instance}"` : ""}).\n\nNext steps:\n`,
    );
    steps.forEach((step, index) => io.stdout(`  ${index + 1}. ${step}\n`));
    return EXIT_OK;
  }
}

/** What goes into the file: from the flags, or asked for on a terminal. */
interface InstallAnswers {
  serverUrl: string;
  apiKey?: string;
  instance?: string;
  publicUrl?: string;
  secureWebhook: boolean;
}

/** The flags, with the missing values asked for when `interactive`. */
async function askAnswers(
  values: ParsedFlags["values"],
  io: CliIo,
  interactive: boolean,
): Promise<InstallAnswers> {
  let serverUrl = stringFlag(values, "server-url");
  let apiKey = stringFlag(values, "api-key");
  let instance = stringFlag(values, "instance");
  if (serverUrl === undefined && interactive) {
    serverUrl = (await io.prompt(`Gateway server URL [${DEFAULT_SERVER_URL}]:`))?.trim() || undefined;
  }
  const checkedUrl = checkUrl("--server-url", serverUrl ?? DEFAULT_SERVER_URL);
  if (apiKey === undefined && values["api-key"] === undefined && interactive) {
    apiKey = (await io.prompt("API key (empty: provide GATEWAY_API_KEY at run time):"))?.trim() ||
      undefined;
  }
  if (instance === undefined && interactive) {
    instance = (await io.prompt("Default instance (empty: none):"))?.trim() || undefined;
  }
  const publicUrl = stringFlag(values, "public-url");
  if (publicUrl !== undefined) checkUrl("--public-url", publicUrl);
  let secureWebhook = booleanFlag(values, "secure-webhook");
  if (secureWebhook && (!apiKey || !instance || publicUrl === undefined)) {
    throw new UsageError(
      "Cannot parse arguments: --secure-webhook needs --api-key, --instance and --public-url",
    );
  }
  if (!secureWebhook && interactive && apiKey && instance && publicUrl !== undefined) {
    const answer = await io.prompt(
      `Configure "${instance}"'s webhook on the server now, signed with the new secret? [y/N]:`,
    );
    secureWebhook = /^y(es)?$/i.test(answer?.trim() ?? "");
  }
  return { serverUrl: checkedUrl, apiKey, instance, publicUrl, secureWebhook };
}

/** The starter configuration, with a new webhook secret. */
function starterConfig({ serverUrl, apiKey, instance }: InstallAnswers) {
  return {
    server_url: serverUrl,
    ...(apiKey ? { api_key: apiKey } : {}),
    ...(instance ? { instance } : {}),
    // The reference server signs webhooks only with a JWT made from `jwt_key` in its webhook headers.
    webhook: {
      route_prefix: DEFAULTS.route_prefix,
      secret: generateWebhookSecret("jwt"),
      signature: { scheme: "jwt" },
    },
    queue: { enabled: false },
    kv: { path: DEFAULT_KV_PATH },
  };
}

/**
 * Write the file (mode 0600: it holds secrets); never over an existing one without `force`. With `force` the
 * new file is written beside the old one and renamed over it, so a crash leaves the old file or the new one,
 * never half of one; a symbolic link or anything but a regular file is refused, so nothing is ever written
 * through a link to a file elsewhere.
 */
async function writeStarter(
  { path, file }: { path: string; file: string },
  starter: object,
  force: boolean,
): Promise<void> {
  const text = JSON.stringify(starter, null, 2) + "\n";
  const failed = (error: unknown) =>
    new CliError(`Cannot write "${path}": ${error instanceof Error ? error.message : error}`, EXIT_FAILED, {
      cause: error,
    });
  if (!force || !await exists(file)) {
    try {
      // createNew (O_EXCL) fails on any existing name, a link included: it never follows one.
      await Deno.writeTextFile(file, text, { createNew: true, mode: 0o600 });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) throw refuse(path);
      throw failed(error);
    }
    return;
  }
  const info = await Deno.lstat(file);
  if (info.isSymlink) {
    throw new CliError(
      `Cannot install: "${path}" is a symbolic link, and install never writes through one (remove the link, ` +
        "or pass --config with the path of the file it points to)",
      EXIT_FAILED,
    );
  }
  if (!info.isFile) {
    throw new CliError(
      `Cannot install: "${path}" is not a regular file, and install replaces only a file`,
      EXIT_FAILED,
    );
  }
  const temporary = `${file}.${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode: 0o600 });
    // rename replaces the name itself: a link put there meanwhile is replaced, never followed.
    await Deno.rename(temporary, file);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw failed(error);
  }
}

/** The next steps, one per line. */
function nextSteps(
  { apiKey, instance, secureWebhook }: InstallAnswers,
  webhookUrl: string,
  path: string,
): string[] {
  const name = instance ?? "<instance>";
  return [
    apiKey ? undefined : "Set GATEWAY_API_KEY in the environment (no api key was written to the file).",
    `Check the server and key: ${runCommand("health")}`,
    // An existing instance is fine for `create`: it says so and exits 0.
    `Create the instance on the server, then pair it with a phone: ${runCommand(`create ${name}`)} && ` +
    runCommand(`connect ${name}`),
    `Run the webhook receiver: ${runCommand("serve")}`,
    secureWebhook
      ? `The instance's webhook on the gateway server now posts to ${webhookUrl}, signed with` +
        ` webhook.secret (jwt), for events ${JSON.stringify(SUGGESTED_EVENTS)}.`
      : `Set the instance's webhook on the gateway server to ${webhookUrl}` +
        ` with headers {"jwt_key": "<webhook.secret from ${path}>"} and events ${
          JSON.stringify(SUGGESTED_EVENTS)
        } (or run install again with --secure-webhook).`,
    `Keep ${path} out of version control: it holds the api key and the webhook secret.`,
  ].filter((step): step is string => step !== undefined);
}

/** `webhooks().secure` with the secret just written, so the file and the server agree. */
async function configureWebhook(
  serverUrl: string,
  apiKey: string,
  instance: string,
  url: string,
  secret: string,
): Promise<void> {
  const { GatewayService } = await import("../service.ts");
  const gw = GatewayService.make({ server_url: serverUrl, api_key: apiKey, instance });
  try {
    await gw.webhooks().secure({ url, secret, events: SUGGESTED_EVENTS });
  } catch (error) {
    // The instance must exist first: after `create`, install again to set the webhook with a new secret.
    const again = error instanceof InstanceNotFoundException
      ? "; then run install again with --force --secure-webhook"
      : "";
    throw new CliError(
      `Wrote the configuration, but cannot configure the webhook of "${instance}": ${
        error instanceof Error ? error.message : error
      }${again}`,
      EXIT_FAILED,
      { cause: error },
    );
  }
}

function refuse(path: string): CliError {
  return new CliError(`Cannot install: "${path}" already exists (use --force to replace it)`, EXIT_FAILED);
}

function checkUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`Cannot parse arguments: "${flag}" must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`Cannot parse arguments: "${flag}" must use http or https, got "${value}"`);
  }
  return value.replace(/\/+$/, "");
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
