/**
 * `reconcile`: recover inbound messages whose webhooks never arrived, into the configured Deno KV store.
 *
 * @module
 */

import { reconcileInboundMessages, type ReconcileInboundResult } from "../delivery/reconcile.ts";
import { WebhookProcessor } from "../webhooks/processor.ts";
import { booleanFlag, type FlagSpec, numberFlag, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand } from "./command.ts";
import { createService, loadCliConfig } from "./config.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { withStore } from "./store.ts";
import { renderTable, writeJson } from "./table.ts";

/** What `reconcile --json` prints: the run's result plus the store used. */
export interface ReconcileReport extends ReconcileInboundResult {
  /** The KV file. */
  store: string;
}

const FLAGS: Record<string, FlagSpec> = {
  instance: {
    type: "string",
    value: "<name>",
    help: "the instance to reconcile (default the configured one)",
  },
  "max-messages": {
    type: "string",
    value: "<n>",
    help: "check at most n messages per instance (default 1000)",
  },
  "lookback-hours": {
    type: "string",
    value: "<n>",
    help: "on a chat's first run, look this far back (default 24)",
  },
  json: { type: "boolean", help: "print a JSON report instead of a table" },
};

/** The `reconcile` command. */
export class ReconcileCommand extends FlagCommand {
  constructor() {
    super({
      name: "reconcile",
      summary: "recover inbound messages whose webhooks were dropped",
      // Stops between pages on SIGINT/SIGTERM (progress is kept).
      handlesSignals: true,
      flags: FLAGS,
      description:
        `Ask the server (findMessages) for each chat's messages newer than the last one checked, and store the
inbound ones the webhook receiver never got, through the same per-message claims as "serve": a message
is stored once whether it came by webhook or here. Progress is kept per chat in the store, so a run
that stops (budget, SIGINT, an error) resumes where it was. Exit code 1 when a chat failed.`,
    });
  }

  /** Recover the missed inbound messages of each instance and print what was found. */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const maxMessages = numberFlag(values, "max-messages", { fallback: 1000, min: 1, integer: true });
    const lookbackHours = numberFlag(values, "lookback-hours", { fallback: 24, min: 1 });
    const instance = stringFlag(values, "instance");
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const { path, result } = await withStore(
      cli,
      (store) =>
        reconcileInboundMessages(createService(cli, { store }), {
          processor: new WebhookProcessor({ store }),
          instances: instance === undefined ? undefined : [instance],
          maxMessages,
          lookbackMs: Math.round(lookbackHours * 3_600_000),
          signal: io.signal,
        }),
    );
    const report: ReconcileReport = { store: path, ...result };
    if (booleanFlag(values, "json")) writeJson(io, report);
    else io.stdout(renderReconcile(report));
    return result.instances.some((one) => one.errors.length > 0) ? EXIT_FAILED : EXIT_OK;
  }
}

/** The text report of `reconcile`. */
export function renderReconcile(report: ReconcileReport): string {
  let text = renderTable(
    ["INSTANCE", "CHATS", "SEEN", "RECOVERED", "COMPLETE"],
    report.instances.map((one) => [
      one.instance,
      String(one.chats),
      String(one.seen),
      String(one.recovered),
      one.complete ? "yes" : "no (the next run resumes)",
    ]),
  );
  for (const one of report.instances) {
    for (const failure of one.errors) text += `${one.instance} ${failure.remoteJid}: ${failure.error}\n`;
  }
  text += `Seen ${report.seen} inbound messages, recovered ${report.recovered} (store ${report.store})\n`;
  return text;
}
