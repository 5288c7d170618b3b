/**
 * `connect <instance>`: ask the server to connect an instance, draw its QR code in the terminal and wait
 * until a phone has scanned it (state `open`) or the timeout passes.
 *
 * @module
 */

import { abortableSleep } from "../timing.ts";
import { InstanceNotFoundException } from "../errors.ts";
import type { GatewayService } from "../service.ts";
import { booleanFlag, type FlagSpec, numberFlag, parseFlags, stringFlag } from "./args.ts";
import { type CliCommand, helpText } from "./command.ts";
import { createService, loadCliConfig, selectConnection } from "./config.ts";
import { CliError, type CliIo, EXIT_FAILED, EXIT_OK, UsageError } from "./io.ts";
import { Spinner } from "./progress.ts";
import { renderQr } from "./qr_terminal.ts";
import { writeJson } from "./table.ts";

/** The QR answer of `GET /instance/connect/<instance>`. */
export interface ConnectQr {
  /** The raw QR content to encode. */
  code: string | null;
  /** A pairing code for "link with phone number", when asked with `--number`. */
  pairingCode: string | null;
  /** How many QR codes the server has generated for this attempt. */
  count: number | null;
}

/** What `connect --json` prints. */
export interface ConnectReport {
  /** Connection used. */
  connection: string;
  /** Instance name. */
  instance: string;
  /** True when the instance reached `open`. */
  connected: boolean;
  /** The last state seen (`open`, `connecting`, `close`), or null. */
  state: string | null;
  /** True when the instance was already open (no QR code was needed). */
  alreadyConnected: boolean;
  /** The last QR content shown, or null. */
  qrCode: string | null;
  /** The last pairing code, or null. */
  pairingCode: string | null;
}

interface Api {
  state(): Promise<string | null>;
  connect(): Promise<{ open: boolean; qr: ConnectQr | null }>;
}

function api(gw: GatewayService, connection: string, instance: string, number: string | undefined): Api {
  const instances = gw.connection(connection).instances();
  return {
    async state() {
      const response = await instances.connectionState(instance, { maxRetries: 1 });
      const state = (response.data as { instance?: { state?: unknown } } | null)?.instance?.state;
      return typeof state === "string" ? state : null;
    },
    async connect() {
      const response = await instances.connect(instance, { number, maxRetries: 1 });
      const data = (response.data ?? {}) as Record<string, unknown>;
      const nested = data.instance as { state?: unknown } | undefined;
      if (nested?.state === "open") return { open: true, qr: null };
      const text = (value: unknown) => typeof value === "string" && value !== "" ? value : null;
      return {
        open: false,
        qr: {
          code: text(data.code),
          pairingCode: text(data.pairingCode),
          count: typeof data.count === "number" ? data.count : null,
        },
      };
    },
  };
}

const FLAGS: Record<string, FlagSpec> = {
  timeout: { type: "string", value: "<seconds>", help: "how long to wait for the scan (default 120)" },
  interval: { type: "string", value: "<ms>", help: "how often to poll the state (default 2000)" },
  number: { type: "string", value: "<phone>", help: "also ask for a pairing code for this phone number" },
  connection: {
    type: "string",
    value: "<name>",
    help: "connection to use (default: the configured default)",
  },
  json: { type: "boolean", help: "print the result as JSON" },
};

/**
 * The `connect` command.
 *
 * @example
 * ```ts
 * import { ConnectCommand } from "./connect.ts";
 * import { memoryIo } from "./io.ts";
 * const code = await new ConnectCommand().run(["sales", "--timeout", "60"], memoryIo());
 * ```
 */
export class ConnectCommand implements CliCommand {
  /** Command name. */
  readonly name: string = "connect";
  /** One-line summary. */
  readonly summary: string = "show an instance's QR code and wait until it is paired";
  /** Its own flags (the common ones come with every command). */
  readonly flags: Readonly<Record<string, FlagSpec>> = FLAGS;
  /** `--help` text. */
  readonly help: string = helpText(
    "connect",
    "<instance>",
    `Connect an instance (GET /instance/connect/<instance>), draw the QR code in the terminal, and wait until
the state is "open" (a phone scanned it) or the timeout passes (exit code 1). When the server closes the
attempt (the QR codes expired) a new code is asked for and drawn. An instance that is already open exits 0
at once. With --json the QR code is drawn on standard error and the result printed as JSON on standard
output.`,
    FLAGS,
  );

  /**
   * Run the command.
   *
   * @example
   * ```ts
   * import { ConnectCommand } from "./connect.ts";
   * import { memoryIo } from "./io.ts";
   * await new ConnectCommand().run(["--help"], memoryIo());
   * ```
   */
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseFlags(args, FLAGS, 1);
    if (booleanFlag(values, "help")) {
      io.stdout(this.help);
      return EXIT_OK;
    }
    const instance = positionals[0];
    if (instance === undefined || instance.trim() === "") {
      throw new UsageError("Missing argument: <instance>");
    }
    const timeoutMs = numberFlag(values, "timeout", { fallback: 120 }) * 1000;
    const intervalMs = numberFlag(values, "interval", { fallback: 2000, integer: true });
    const json = booleanFlag(values, "json");
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const gw = createService(cli);
    const connection = selectConnection(gw, stringFlag(values, "connection"));
    const server = api(gw, connection, instance, stringFlag(values, "number"));
    const report: ConnectReport = {
      connection,
      instance,
      connected: false,
      state: null,
      alreadyConnected: false,
      qrCode: null,
      pairingCode: null,
    };
    const finish = (code: number) => {
      if (json) writeJson(io, report);
      return code;
    };
    // Human output goes to stdout, or to stderr when stdout carries JSON.
    const say = json ? io.stderr : io.stdout;
    const drawOn = json ? io.stderrIsTerminal : io.stdoutIsTerminal;

    try {
      report.state = await server.state();
    } catch (error) {
      if (error instanceof InstanceNotFoundException) {
        throw new CliError(
          `Instance "${instance}" does not exist on connection "${connection}"`,
          EXIT_FAILED,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    if (report.state === "open") {
      report.connected = true;
      report.alreadyConnected = true;
      if (!json) say(`Instance "${instance}" is already connected\n`);
      return finish(EXIT_OK);
    }

    const show = (qr: ConnectQr) => {
      if (qr.code === report.qrCode && qr.pairingCode === report.pairingCode) return;
      report.qrCode = qr.code ?? report.qrCode;
      report.pairingCode = qr.pairingCode ?? report.pairingCode;
      if (qr.code !== null) {
        say(
          `Scan this QR code with WhatsApp (Settings > Linked devices > Link a device)` +
            `${qr.count === null ? "" : `, code #${qr.count}`}:\n\n`,
        );
        say(renderQr(qr.code, { style: drawOn && io.color ? "ansi" : "plain" }));
        say("\n");
      }
      if (qr.pairingCode !== null) say(`Or enter the pairing code on the phone: ${qr.pairingCode}\n`);
    };

    const deadline = Date.now() + timeoutMs;
    const first = await server.connect();
    if (first.open) {
      report.connected = true;
      report.state = "open";
      if (!json) say(`Instance "${instance}" is connected\n`);
      return finish(EXIT_OK);
    }
    if (first.qr) show(first.qr);
    if (first.qr?.code == null && first.qr?.pairingCode == null) {
      say("The server returned no QR code yet; waiting for the instance to connect\n");
    }

    const label = () =>
      `Waiting for the scan (${Math.max(0, Math.ceil((deadline - Date.now()) / 1000))} s left)`;
    const spinner = new Spinner(io, label()).start();
    try {
      while (Date.now() < deadline) {
        await abortableSleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())), io.signal);
        report.state = await server.state();
        spinner.update(label());
        if (report.state === "open") break;
        if (report.state === "close" && Date.now() < deadline) {
          // The attempt ended (QR codes expired): start a new one and show its code.
          const next = await server.connect();
          if (next.open) {
            report.state = "open";
            break;
          }
          if (next.qr) {
            spinner.stop();
            show(next.qr);
            spinner.start();
          }
        }
      }
    } finally {
      spinner.stop();
    }
    if (report.state === "open") {
      report.connected = true;
      if (!json) say(`Instance "${instance}" is connected\n`);
      return finish(EXIT_OK);
    }
    const seconds = timeoutMs / 1000;
    if (json) writeJson(io, report);
    throw new CliError(
      `Cannot connect "${instance}": not paired within ${seconds} s (state "${report.state ?? "unknown"}")`,
      EXIT_FAILED,
    );
  }
}
