/**
 * `reconcile-sends`: settle unknown-outcome sends in the KV store by looking for them on the server.
 *
 * @module
 */

import { reconcileSends, type ReconcileSendsResult } from "../tasks/reconcile_sends.ts";
import { booleanFlag, type FlagSpec, numberFlag, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand } from "./command.ts";
import { createService, loadCliConfig } from "./config.ts";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { withStore } from "./store.ts";
import { renderTable, writeJson } from "./table.ts";

/** What `reconcile-sends --json` prints: the task's result plus the settings used. */
export interface ReconcileSendsReport extends ReconcileSendsResult {
  /** The KV file. */
  store: string;
  /** Most records looked up in this run. */
  limit: number;
  /** Only records whose last attempt is at least this old, in seconds. */
  minAgeSeconds: number;
  /** Only this instance, or null for all. */
  instance: string | null;
}

const FLAGS: Record<string, FlagSpec> = {
  limit: { type: "string", value: "<n>", help: "look up at most n sends (default 100)" },
  "min-age": {
    type: "string",
    value: "<seconds>",
    help:
      "only sends whose last attempt is at least this old (default 60): a server still working on a send has not stored it yet",
  },
  instance: { type: "string", value: "<name>", help: "only this instance's sends" },
  "dry-run": { type: "boolean", help: "only list what would be looked up" },
  json: { type: "boolean", help: "print a JSON report instead of a table" },
};

/** The `reconcile-sends` command. */
export class ReconcileSendsCommand extends FlagCommand {
  constructor() {
    super({
      name: "reconcile-sends",
      summary: "settle sends whose outcome is unknown by looking for them on the server",
      // Stops after the record in flight on SIGINT/SIGTERM.
      handlesSignals: true,
      flags: FLAGS,
      description:
        `Settle the sends recorded in the Deno KV store whose outcome is unknown (the server may have delivered
them). First, a send left "pending" by a process that died mid-send (its claim ended) becomes unknown.
Then each unknown send is looked for on the server (POST /chat/findMessages: sent from the instance to its
recipient, around the time of its attempts, with its content): found, it is settled as sent with the real
message id; not found, it is settled as not sent, and retry-failed may resend it. The server must store
sent messages (DATABASE_SAVE_DATA_NEW_MESSAGE=true, its default). Exit code 1 when some stay unknown.`,
    });
  }

  /** Look up the sends of unknown outcome on the server, settle them and print the report. */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const limit = numberFlag(values, "limit", { fallback: 100, integer: true });
    const minAgeSeconds = numberFlag(values, "min-age", { fallback: 60, min: 0 });
    const instance = stringFlag(values, "instance");
    const dryRun = booleanFlag(values, "dry-run");
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const service = createService(cli);
    const { path, result } = await withStore(cli, (store) =>
      reconcileSends({
        service,
        store,
        limit,
        minAgeMs: Math.round(minAgeSeconds * 1000),
        instance,
        dryRun,
        signal: io.signal,
      }));
    const report: ReconcileSendsReport = {
      store: path,
      limit,
      minAgeSeconds,
      instance: instance ?? null,
      ...result,
    };
    if (booleanFlag(values, "json")) writeJson(io, report);
    else io.stdout(renderReconcile(report));
    return result.undecided > 0 ? EXIT_FAILED : EXIT_OK;
  }
}

/** The text report of `reconcile-sends`. */
export function renderReconcile(report: ReconcileSendsReport): string {
  if (report.results.length === 0) return `No sends with an unknown outcome in ${report.store}\n`;
  let text = renderTable(
    ["RECORD", "RESULT", "DETAIL"],
    report.results.map((item) => [item.id, item.status, item.messageId ?? item.error ?? item.reason]),
  );
  text += report.dryRun
    ? `Would look up ${report.checked}\n`
    : `Looked up ${report.checked}: ${report.sent} sent, ${report.notSent} not sent, ${report.undecided} still unknown; ${report.expired} expired claim(s)\n`;
  return text;
}
