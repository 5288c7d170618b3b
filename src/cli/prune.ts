/**
 * `prune [--days N] [--dry-run]`: remove old records from the configured Deno KV store.
 *
 * @module
 */

import { RECORD_KINDS, type RecordKind } from "../store/store.ts";
import { pruneOldRecords } from "../tasks/prune.ts";
import { booleanFlag, type FlagSpec, numberFlag, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand } from "./command.ts";
import { loadCliConfig } from "./config.ts";
import { type CliIo, EXIT_OK, UsageError } from "./io.ts";
import { ProgressBar } from "./progress.ts";
import { withStore } from "./store.ts";
import { renderTable, writeJson } from "./table.ts";

/** What `prune --json` prints. */
export interface PruneReport {
  /** The KV file. */
  store: string;
  /** Whether nothing was removed (only counted). */
  dryRun: boolean;
  /** The age limit in days. */
  days: number;
  /** The cut-off as an ISO 8601 time: older records were removed. */
  before: string;
  /** Records removed (or, in a dry run, that would be) per kind pruned. */
  counts: Partial<Record<RecordKind, number>>;
  /** Sum of `counts`. */
  total: number;
}

const FLAGS: Record<string, FlagSpec> = {
  days: { type: "string", value: "<n>", help: "age limit in days, a positive number (default 30)" },
  kind: {
    type: "string",
    value: "<kind>",
    multiple: true,
    help: `only this kind: ${RECORD_KINDS.join(", ")} (repeatable; default all)`,
  },
  "dry-run": { type: "boolean", help: "only count what would be removed" },
  json: { type: "boolean", help: "print a JSON report instead of a table" },
};

/** The `prune` command. */
export class PruneCommand extends FlagCommand {
  constructor() {
    super({
      name: "prune",
      summary: "delete stored records older than N days",
      flags: FLAGS,
      description:
        `Remove records older than N days from the Deno KV store ("kv.path" in gateway-api.json, GATEWAY_KV_PATH,
default gateway.kv): outbound messages by creation time, inbound messages and webhook logs by arrival,
instance snapshots by their last update. The store file must exist.`,
    });
  }

  /** Count, or delete, the records older than the age limit and print the counts. */
  protected async execute({ values }: ParsedFlags, io: CliIo): Promise<number> {
    const days = numberFlag(values, "days", { fallback: 30 });
    const kinds = kindFlags(values);
    const dryRun = booleanFlag(values, "dry-run");
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    const bar = new ProgressBar(io, dryRun ? "Counting" : "Pruning");
    const { path, result } = await withStore(cli, (store) => pruneKinds(store, kinds, days, dryRun, bar));
    const report: PruneReport = { store: path, dryRun, days, ...result };
    if (booleanFlag(values, "json")) {
      writeJson(io, report);
      return EXIT_OK;
    }
    const { counts, total } = report;
    io.stdout(
      renderTable(
        ["KIND", dryRun ? "WOULD REMOVE" : "REMOVED"],
        kinds.map((kind) => [kind, String(counts[kind])]),
      ),
    );
    io.stdout(
      `${dryRun ? "Would remove" : "Removed"} ${total} record${
        total === 1 ? "" : "s"
      } older than ${days} day${days === 1 ? "" : "s"} (before ${report.before}) from ${path}\n`,
    );
    return EXIT_OK;
  }
}

/** The `--kind` flags, each once (all kinds without one); an unknown kind is a usage error. */
function kindFlags(values: ParsedFlags["values"]): RecordKind[] {
  const kinds = ((values.kind as string[] | undefined) ?? [...RECORD_KINDS]) as RecordKind[];
  for (const kind of kinds) {
    if (!RECORD_KINDS.includes(kind)) {
      throw new UsageError(
        `Cannot parse arguments: unknown kind "${kind}" for "--kind" (expected one of ${
          RECORD_KINDS.join(", ")
        })`,
      );
    }
  }
  return [...new Set(kinds)];
}

/** Prune (or count) each kind in turn, showing progress. */
async function pruneKinds(
  store: Parameters<typeof pruneOldRecords>[0]["store"],
  kinds: RecordKind[],
  days: number,
  dryRun: boolean,
  bar: ProgressBar,
): Promise<Omit<PruneReport, "store" | "dryRun" | "days">> {
  // One clock for every kind, so they share one cut-off.
  const now = Date.now();
  const counts: Partial<Record<RecordKind, number>> = {};
  let total = 0;
  let before = now;
  try {
    for (const [index, kind] of kinds.entries()) {
      bar.update(index, kinds.length);
      const result = await pruneOldRecords({ store, days, kinds: [kind], dryRun, now: () => now });
      counts[kind] = result.counts[kind] ?? 0;
      total += result.total;
      before = result.before;
    }
    bar.update(kinds.length, kinds.length);
  } finally {
    bar.done();
  }
  return { before: new Date(before).toISOString(), counts, total };
}
