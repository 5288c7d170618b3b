/**
 * `pruneOldRecords`: remove records older than a number of days, kind by kind.
 *
 * @module
 */

import { getGatewayLogger } from "../log.ts";
import { type GatewayStore, RECORD_KINDS, type RecordKind } from "../store/store.ts";

/** Options of {@link pruneOldRecords}. */
export interface PruneOptions {
  /** Where the records are. */
  store: GatewayStore;
  /** Remove records older than this many days (default 30). Must be a positive, finite number. */
  days?: number;
  /** Which kinds to prune (default all: outbound, inbound, webhook_logs, instances). */
  kinds?: readonly RecordKind[];
  /** Only count what would be removed. */
  dryRun?: boolean;
  /** Clock in epoch ms (default `Date.now`). */
  now?: () => number;
}

/** What {@link pruneOldRecords} removed (or, in a dry run, would remove). */
export interface PruneResult {
  /** Records removed per kind; only the kinds that were pruned appear. */
  counts: Partial<Record<RecordKind, number>>;
  /** Sum of `counts`. */
  total: number;
  /** The cut-off: records strictly older than this time (epoch ms) were removed. */
  before: number;
  /** Whether this was a dry run (nothing removed). */
  dryRun: boolean;
}

const DAY_MS = 86_400_000;

/** Throw a `RangeError` for a `days` or `kinds` that `pruneOldRecords` refuses (also used at registration). */
export function checkPruneOptions(days: number, kinds: readonly RecordKind[] | undefined): void {
  if (typeof days !== "number" || !Number.isFinite(days) || days <= 0) {
    throw new RangeError(`Cannot prune records: "days" must be a positive number, got "${String(days)}"`);
  }
  if (kinds === undefined) return;
  if (kinds.length === 0) throw new RangeError(`Cannot prune records: "kinds" is empty`);
  for (const kind of kinds) {
    if (!RECORD_KINDS.includes(kind)) {
      throw new RangeError(
        `Cannot prune records: unknown kind "${String(kind)}" (expected one of ${RECORD_KINDS.join(", ")})`,
      );
    }
  }
}
const log = getGatewayLogger("tasks", "prune");

/**
 * Remove records older than `days` days from the store, kind by kind (outbound by creation time, inbound
 * messages and webhook logs by arrival, instance snapshots by their last update). A missing, zero,
 * negative or non-finite `days` is a `RangeError`, never "delete everything".
 *
 * @example Keep two weeks of records
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * import { pruneOldRecords } from "@gw/gateway/tasks";
 * const result = await pruneOldRecords({ store: new MemoryStore(), days: 14 });
 * console.log(result.counts); // { outbound: 0, inbound: 0, webhook_logs: 0, instances: 0 }
 * ```
 *
 * @example See what would go, without removing anything
 * ```ts
 * import { MemoryStore } from "@gw/gateway";
 * import { pruneOldRecords } from "@gw/gateway/tasks";
 * const result = await pruneOldRecords({ store: new MemoryStore(), kinds: ["webhook_logs"], dryRun: true });
 * console.log(result.total);
 * ```
 */
export async function pruneOldRecords(options: PruneOptions): Promise<PruneResult> {
  const days = options.days ?? 30;
  checkPruneOptions(days, options.kinds);
  const kinds = options.kinds ?? RECORD_KINDS;
  const dryRun = options.dryRun === true;
  const before = (options.now ?? Date.now)() - days * DAY_MS;
  const counts: Partial<Record<RecordKind, number>> = {};
  let total = 0;
  for (const kind of new Set(kinds)) {
    const count = await options.store.prune(kind, before, { dryRun });
    counts[kind] = count;
    total += count;
  }
  log.info("Pruned {total} records older than {days} days{dry}: {counts}", {
    total,
    days,
    dry: dryRun ? " (dry run)" : "",
    counts,
  });
  return { counts, total, before, dryRun };
}
