/**
 * `connect <instance>`: pair an instance with a phone through `instances().connectFlow(...)`: draw each
 * QR code in the terminal (or print the pairing code with `--pairing`), and wait until the phone paired
 * (state `open`), the flow gives up, or the timeout passes.
 *
 * @module
 */

import { InstanceNotFoundException } from "../errors.ts";
import {
  booleanFlag,
  CONNECTION_FLAG,
  type FlagSpec,
  numberFlag,
  type ParsedFlags,
  stringFlag,
} from "./args.ts";
import { FlagCommand, runCommand } from "./command.ts";
import { createService, loadCliConfig, selectConnection } from "./config.ts";
import { CliError, type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { Spinner } from "./progress.ts";
import { renderQr } from "./qr_terminal.ts";
import { writeJson } from "./table.ts";
import type { ConnectFlowEvent } from "../instances/connect_flow.ts";
import type { InstancesResource } from "../resources/instances.ts";

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
export class ConnectCommand extends FlagCommand {
  constructor() {
    super({
      name: "connect",
      summary: "show an instance's QR code and wait until it is paired",
      argument: "<instance>",
      flags: FLAGS,
      description:
        `Connect an instance (GET /instance/connect/<instance>), draw each QR code in the terminal (or, with
--pairing, print the code to type on that phone under Linked devices > Link with phone number), and wait
until the state is "open" (exit 0). Exit code 1 when the timeout passes, the QR code limit is reached, the
attempt is closed (with the reason), or the instance stays "connecting" with no code even after one
restart. An instance that is already open exits 0 at once. With --json the QR code is drawn on standard
error and the result printed as JSON on standard output.`,
    });
  }

  /** Connect the instance and wait until it is paired, the timeout passes or the attempt ends. */
  protected async execute({ values, positionals }: ParsedFlags, io: CliIo): Promise<number> {
    const instance = positionals[0];
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

    report.state = await currentState(instances, instance, connection);
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
    const drawOn = json ? io.stderrIsTerminal : io.stdoutIsTerminal;
    const refusal = await followFlow(flow, {
      io,
      report,
      say,
      drawOn,
      pairing: pairing !== undefined,
      timeoutMs,
    });
    if (report.connected) {
      if (!json) say(`Instance "${instance}" is connected\n`);
      return finish(EXIT_OK);
    }
    if (json) writeJson(io, report);
    throw new CliError(`Cannot connect "${instance}": ${refusal ?? "the flow ended"}`, EXIT_FAILED);
  }
}

/** The instance's state now (null when the server gives none); a missing instance is a clear failure. */
async function currentState(
  instances: InstancesResource,
  instance: string,
  connection: string,
): Promise<string | null> {
  try {
    const response = await instances.connectionState(instance, { maxRetries: 1 });
    return response.json<string | undefined>("instance.state") ?? null;
  } catch (error) {
    if (error instanceof InstanceNotFoundException) {
      throw new CliError(
        `Instance "${instance}" does not exist on connection "${connection}" (create it: ${
          runCommand(`create ${instance}`)
        })`,
        EXIT_FAILED,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Where and how the flow is shown. */
interface FlowView {
  io: CliIo;
  report: ConnectReport;
  say: (text: string) => void;
  /** Whether the QR code is drawn on a terminal (colours allowed). */
  drawOn: boolean;
  pairing: boolean;
  timeoutMs: number;
}

/** Off a terminal, a progress line this often while nothing changes. */
const PROGRESS_EVERY_MS = 30_000;

/**
 * Show the flow's codes under a countdown spinner until it ends; returns why it gave up, if it did. Until
 * a code arrived the wait is for the server, not for the scan, and says so. Off a terminal (no spinner) the
 * progress is a line on stderr at the start and every 30 s.
 */
async function followFlow(
  flow: AsyncIterable<ConnectFlowEvent>,
  view: FlowView,
): Promise<string | undefined> {
  const { io, report } = view;
  const deadline = Date.now() + view.timeoutMs;
  let codes = 0;
  const waitingFor = () =>
    codes > 0
      ? `the ${view.pairing ? "pairing" : "scan"}`
      : `a ${view.pairing ? "pairing code" : "QR code"} from the server`;
  const label = () =>
    `Waiting for ${waitingFor()} (${Math.max(0, Math.ceil((deadline - Date.now()) / 1000))} s left)`;
  const spinner = new Spinner(io, label());
  if (!spinner.active) {
    io.stderr(
      `Connecting "${report.instance}": waiting for ${waitingFor()} (up to ${view.timeoutMs / 1000} s)\n`,
    );
  }
  let lineAt = Date.now();
  const ticker = setInterval(() => {
    spinner.update(label());
    if (spinner.active || Date.now() - lineAt < PROGRESS_EVERY_MS) return;
    lineAt = Date.now();
    io.stderr(`Still ${label().replace(/^W/, "w")}\n`);
  }, 1000);
  let refusal: string | undefined;
  try {
    spinner.start();
    for await (const step of flow) {
      if (step.type === "qr" || step.type === "pairing") {
        spinner.stop();
        report.state = "connecting";
        codes++;
        lineAt = Date.now();
        showCode(step, codes, view);
        spinner.start();
      } else if (step.type === "open") {
        report.state = "open";
        report.connected = true;
      } else {
        report.state = step.state ?? report.state;
        refusal = codes === 0 && (step.reason === "timeout" || step.reason === "stuck_connecting")
          ? noCode(view, step.reason, report.state)
          : step.reason === "timeout"
          ? `not paired within ${view.timeoutMs / 1000} s (state "${report.state ?? "unknown"}")`
          : `${step.message} (${step.reason})`;
      }
    }
  } finally {
    clearInterval(ticker);
    spinner.stop();
  }
  return refusal;
}

/** Why the flow ended when the server never gave a code: the server could not reach WhatsApp. */
function noCode(view: FlowView, reason: "timeout" | "stuck_connecting", state: string | null): string {
  const when = reason === "timeout" ? `within ${view.timeoutMs / 1000} s` : "even after a restart";
  return `no ${view.pairing ? "pairing code" : "QR code"} arrived ${when} (state "${state ?? "unknown"}"): ` +
    "the server started the WhatsApp connection but got no code from WhatsApp; check that the server can " +
    "reach WhatsApp (its network, proxy or firewall) and look at its logs, then run connect again";
}

/** Draw a QR code (the `codes`-th), or print a pairing code, and keep it in the report. */
function showCode(
  step: Extract<ConnectFlowEvent, { type: "qr" | "pairing" }>,
  codes: number,
  { io, report, say, drawOn }: FlowView,
): void {
  if (step.type === "qr") {
    report.qrCode = step.code;
    say(`Scan this QR code with WhatsApp (Settings > Linked devices > Link a device), code #${codes}:\n\n`);
    say(renderQr(step.code, { style: drawOn && io.color ? "ansi" : "plain" }));
    say("\n");
  } else {
    report.pairingCode = step.code;
    say(`Enter this pairing code on the phone (Linked devices > Link with phone number): ${step.code}\n`);
  }
}
