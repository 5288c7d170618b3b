/**
 * `retry-failed`: resend failed messages recorded in the configured Deno KV store.
 *
 * @module
 */

import { retryFailedMessages, type RetryFailedResult } from "../tasks/retry_failed.ts";
import { booleanFlag, type FlagSpec, numberFlag, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand } from "./command.ts";
import { createService, loadCliConfig } from "./config.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { ProgressBar } from "./progress.ts";
import { withStore } from "./store.ts";
import { renderTable, writeJson } from "./table.ts";

/** What `retry-failed --json` prints: the task's result plus the settings used. */
export interface RetryFailedReport extends RetryFailedResult {
  /** The KV file. */
  store: string;
  /** Records resent this many times were skipped. */
  maxRetries: number;
  /** Most resends in this run. */
  limit: number;
  /** Only this instance, or null for all. */
  instance: string | null;
}

const FLAGS: Record<string, FlagSpec> = {
  "max-retries": { type: "string", value: "<n>", help: "skip records already resent n times (default 3)" },
  limit: { type: "string", value: "<n>", help: "resend at most n messages (default 100)" },
  instance: { type: "string", value: "<name>", help: "only this instance's messages" },
  "dry-run": { type: "boolean", help: "only list what would be resent (nothing is looked up)" },
  json: { type: "boolean", help: "print a JSON report instead of a table" },
};

/** The `retry-failed` command. */
export class RetryFailedCommand extends FlagCommand {
  constructor() {
    super({
      name: "retry-failed",
      summary: "resend failed messages recorded in the store",
      // Stops after the record in flight on SIGINT/SIGTERM.
      handlesSignals: true,
      flags: FLAGS,
      description:
        `Resend the failed messages recorded in the Deno KV store, oldest first, with their original body and
connection. Each record is claimed atomically, so two runs never resend the same message. A message whose
outcome is unknown (the server may have delivered it) is first looked for on the server: found, it is
settled as sent and not resent; not found, it is resent; otherwise it is skipped. Exit code 1 when any
resend failed again. SIGINT stops after the message in flight.`,
    });
  }

  /** Resend the failed records (or list them with --dry-run) and print the report. */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const maxRetries = numberFlag(values, "max-retries", { fallback: 3, min: 0, integer: true });
    const limit = numberFlag(values, "limit", { fallback: 100, integer: true });
    const instance = stringFlag(values, "instance");
    const dryRun = booleanFlag(values, "dry-run");
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const service = createService(cli);
    const bar = new ProgressBar(io, dryRun ? "Checking" : "Resending");
    const { path, result } = await withStore(cli, async (store) => {
      try {
        // The total is only worth reading when a bar shows it.
        const total = io.stderrIsTerminal
          ? (await store.listOutbound({ status: "failed", instance })).length
          : undefined;
        let done = 0;
        return await retryFailedMessages({
          service,
          store,
          maxRetries,
          limit,
          instance,
          dryRun,
          signal: io.signal,
          onResult: () => bar.update(++done, total),
        });
      } finally {
        bar.done();
      }
    });
    const report: RetryFailedReport = {
      store: path,
      maxRetries,
      limit,
      instance: instance ?? null,
      ...result,
    };
    if (booleanFlag(values, "json")) writeJson(io, report);
    else io.stdout(renderRetry(report));
    return result.failed > 0 ? EXIT_FAILED : EXIT_OK;
  }
}

/** The text report of `retry-failed`. */
export function renderRetry(report: RetryFailedReport): string {
  if (report.results.length === 0) return `No failed messages to resend in ${report.store}\n`;
  let text = renderTable(
    ["RECORD", "RESULT", "RETRIES", "DETAIL"],
    report.results.map((item) => [
      item.id,
      item.status,
      String(item.retryCount),
      item.messageId ?? item.error ?? item.reason,
    ]),
  );
  text += report.dryRun
    ? `Would resend ${report.attempted}, skip ${report.skipped}\n`
    : `Resent ${report.attempted}: ${report.sent} sent, ${report.failed} failed; ${report.reconciled} found already sent; ${report.skipped} skipped\n`;
  return text;
}
