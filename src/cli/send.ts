/**
 * `send <file>`: a paced, resumable bulk send of the messages in a JSON or JSON Lines file, through
 * `messages().sendMany`, with a progress bar. Progress is kept in the KV file, so running the command
 * again after a crash sends only what is left.
 *
 * @module
 */

import type { SendManyItem, SendManyReport } from "../pacing/send_many.ts";
import { booleanFlag, type FlagSpec, numberFlag, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand } from "./command.ts";
import { createService, loadCliConfig, selectConnection } from "./config.ts";
import { CliError, type CliIo, EXIT_FAILED, EXIT_OK, resolvePath } from "./io.ts";
import { ProgressBar } from "./progress.ts";
import { openStore } from "./store.ts";
import { renderTable, writeJson } from "./table.ts";

/** Read bulk-send items (a JSON array or JSON Lines), each with `idempotencyKey`, `to` and `text`. */
export function parseSendItems(text: string, path: string): SendManyItem[] {
  const trimmed = text.trim();
  if (trimmed === "") throw new CliError(`Cannot read "${path}": the file is empty`, EXIT_FAILED);
  try {
    if (trimmed.startsWith("[")) return JSON.parse(trimmed) as SendManyItem[];
    return trimmed.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
  } catch (error) {
    throw new CliError(
      `Cannot read "${path}": not a JSON array or JSON Lines (${
        error instanceof Error ? error.message : error
      })`,
      EXIT_FAILED,
    );
  }
}

const FLAGS: Record<string, FlagSpec> = {
  instance: { type: "string", value: "<name>", help: "instance to send from (default: the configured one)" },
  connection: { type: "string", value: "<name>", help: "connection to use" },
  "min-gap": { type: "string", value: "<ms>", help: "least time between two sends (default 4000)" },
  jitter: { type: "string", value: "<ms>", help: "random extra wait per gap (default 3000)" },
  "recipient-interval": {
    type: "string",
    value: "<ms>",
    help: "least time between two sends to one recipient (default 60000)",
  },
  "daily-cap": { type: "string", value: "<n>", help: "sends per instance per UTC day (default 1000)" },
  warmup: { type: "boolean", help: "new number: caps of 20, 40, 80, 160, 320 for its first five days" },
  "no-typing": { type: "boolean", help: 'do not show "typing..." before texts' },
  json: { type: "boolean", help: "print the report as JSON" },
};

/** The `send` command. */
export class SendCommand extends FlagCommand {
  constructor() {
    super({
      name: "send",
      summary: "send many messages from a file, paced and resumable",
      argument: "<file>",
      // The command stops between two messages on SIGINT/SIGTERM.
      handlesSignals: true,
      flags: FLAGS,
      description:
        `Send the messages in <file> (a JSON array or JSON Lines of {"idempotencyKey", "to", "text"}) one at a
time at a pace that does not look like spam: a jittered gap between sends, a minimum interval per
recipient, a daily cap, "typing..." before each text, and a pause on restriction signals (a banned number,
a refused key, repeated failures). Progress is kept in the KV file: run the command again after a crash or
Ctrl-C and only what is left is sent, never a message twice. Exit code 1 when a message failed or the
run paused.`,
    });
  }

  /** Send what is left in the file, paced, and print the report. */
  protected async execute({ values, positionals }: ParsedFlags, io: CliIo): Promise<number> {
    const path = positionals[0];
    const minGapMs = numberFlag(values, "min-gap", { fallback: 4_000, min: 0, integer: true });
    const jitterMs = numberFlag(values, "jitter", { fallback: 3_000, min: 0, integer: true });
    const recipientIntervalMs = numberFlag(values, "recipient-interval", {
      fallback: 60_000,
      min: 0,
      integer: true,
    });
    const dailyCap = numberFlag(values, "daily-cap", { fallback: 1_000, integer: true });
    let text: string;
    try {
      text = await Deno.readTextFile(resolvePath(io, path));
    } catch (error) {
      throw new CliError(
        `Cannot read "${path}": ${error instanceof Error ? error.message : error}`,
        EXIT_FAILED,
        {
          cause: error,
        },
      );
    }
    const items = parseSendItems(text, path);
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const opened = await openStore(cli, { mustExist: false });
    const bar = new ProgressBar(io, "Sending");
    let report: SendManyReport;
    try {
      const gw = createService(cli, { store: opened.store });
      const connection = selectConnection(gw, stringFlag(values, "connection"));
      report = await gw.connection(connection).messages().sendMany(items, {
        instance: stringFlag(values, "instance"),
        minGapMs,
        jitterMs,
        recipientIntervalMs,
        dailyCap,
        warmup: booleanFlag(values, "warmup"),
        typing: !booleanFlag(values, "no-typing"),
        signal: io.signal,
        onProgress: (progress) => bar.update(progress.done, progress.total),
      });
    } finally {
      bar.done();
      opened.close();
    }
    if (booleanFlag(values, "json")) writeJson(io, report);
    else io.stdout(renderSendReport(report));
    return report.failed > 0 || report.paused > 0 || report.unknown > 0 ? EXIT_FAILED : EXIT_OK;
  }
}

/** The text report of `send`: the failures and the totals. */
export function renderSendReport(report: SendManyReport): string {
  const problems = report.items.filter((item) => item.status === "failed" || item.status === "unknown");
  let text = problems.length === 0 ? "" : renderTable(
    ["KEY", "TO", "RESULT", "DETAIL"],
    problems.map((item) => [item.idempotencyKey, item.to, item.status, item.error ?? null]),
  );
  text +=
    `Batch ${report.batchId}: ${report.sent} sent, ${report.skipped} sent before, ${report.failed} failed, ` +
    `${report.unknown} unknown, ${report.paused} not sent (paused)\n`;
  if (report.pause) text += `Paused (${report.pause.reason}): ${report.pause.message}\n`;
  return text;
}
