/**
 * `connect <instance>`: pair an instance with a phone through `instances().connectFlow(...)`: draw each
 * QR code in the terminal (or print the pairing code with `--pairing`), and wait until the phone paired
 * (state `open`), the flow gives up, or the timeout passes.
 *
 * @module
 */

import { InstanceNotFoundException } from "../errors.ts";
import { booleanFlag, CONNECTION_FLAG, type FlagSpec, numberFlag, parseFlags, stringFlag } from "./args.ts";
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
  /** A pairing code for "link with phone number", when asked with `--pairing`. */
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

const FLAGS: Record<string, FlagSpec> = {
  timeout: { type: "string", value: "<seconds>", help: "how long to wait for the scan (default 120)" },
  interval: { type: "string", value: "<ms>", help: "how often to poll the state (default 2000)" },
  pairing: {
    type: "string",
    value: "<phone>",
    help: "pair with a code for this phone number instead of a QR code",
  },
  connection: CONNECTION_FLAG,
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
    `Connect an instance (GET /instance/connect/<instance>), draw each QR code in the terminal (or, with
--pairing, print the code to type on that phone under Linked devices > Link with phone number), and wait
until the state is "open" (exit 0). Exit code 1 when the timeout passes, the QR code limit is reached, the
attempt is closed (with the reason), or the instance stays "connecting" with no code even after one
restart. An instance that is already open exits 0 at once. With --json the QR code is drawn on standard
error and the result printed as JSON on standard output.`,
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
    const pairing = stringFlag(values, "pairing");
    const instances = gw.connection(connection).instances();
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
      const response = await instances.connectionState(instance, { maxRetries: 1 });
      report.state = response.json<string | undefined>("instance.state") ?? null;
    } catch (error) {
      if (error instanceof InstanceNotFoundException) {
        throw new CliError(
          `Instance "${instance}" does not exist on connection "${connection}" (create it: deno task create ${instance})`,
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

    const flow = instances.connectFlow({
      method: pairing === undefined ? "qr" : "pairing",
      number: pairing,
      instance,
      timeoutMs,
      pollIntervalMs: intervalMs,
      signal: io.signal,
    });
    const deadline = Date.now() + timeoutMs;
    const label = () =>
      `Waiting for the ${pairing === undefined ? "scan" : "pairing"} (${
        Math.max(0, Math.ceil((deadline - Date.now()) / 1000))
      } s left)`;
    const spinner = new Spinner(io, label());
    const ticker = setInterval(() => spinner.update(label()), 1000);
    let refusal: string | undefined;
    let codes = 0;
    try {
      spinner.start();
      for await (const step of flow) {
        if (step.type === "qr" || step.type === "pairing") {
          spinner.stop();
          report.state = "connecting";
          if (step.type === "qr") {
            report.qrCode = step.code;
            codes++;
            say(
              `Scan this QR code with WhatsApp (Settings > Linked devices > Link a device), code #${codes}:\n\n`,
            );
            say(renderQr(step.code, { style: drawOn && io.color ? "ansi" : "plain" }));
            say("\n");
          } else {
            report.pairingCode = step.code;
            say(
              `Enter this pairing code on the phone (Linked devices > Link with phone number): ${step.code}\n`,
            );
          }
          spinner.start();
        } else if (step.type === "open") {
          report.state = "open";
          report.connected = true;
        } else {
          report.state = step.state ?? report.state;
          refusal = step.reason === "timeout"
            ? `not paired within ${timeoutMs / 1000} s (state "${report.state ?? "unknown"}")`
            : `${step.message} (${step.reason})`;
        }
      }
    } finally {
      clearInterval(ticker);
      spinner.stop();
    }
    if (report.connected) {
      if (!json) say(`Instance "${instance}" is connected\n`);
      return finish(EXIT_OK);
    }
    if (json) writeJson(io, report);
    throw new CliError(`Cannot connect "${instance}": ${refusal ?? "the flow ended"}`, EXIT_FAILED);
  }
}
