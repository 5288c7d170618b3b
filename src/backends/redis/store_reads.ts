/**
 * How `RedisStore` reads: one record by id, or records in an index's order, in batches.
 *
 * @module
 */

import type { RecordKind } from "../../store/store.ts";
import type { RedisConnection } from "./connection.ts";

/** Ids read from an index per round. */
const SCAN_BATCH = 200;

/** A time as a sorted-set score (`+inf` / `-inf` for the infinities). */
export function score(time: number): string {
  return time === Infinity ? "+inf" : time === -Infinity ? "-inf" : String(time);
}

/** The record `id` of `kind`, or null. */
export async function readRecord<T>(redis: RedisConnection, kind: RecordKind, id: string): Promise<T | null> {
  const json = await redis.command<string | null>(["HGET", `${redis.prefix}${kind}:rec:${id}`, "json"]);
  return json === null ? null : JSON.parse(json) as T;
}

/**
 * Up to `range.limit` records of `kind` in the order of the sorted set `index`, scores from `range.min` to
 * `range.max`, keeping those `range.keep` accepts (the record is read after its index entry, so it is
 * checked again).
 */
export async function scanIndex<T>(
  redis: RedisConnection,
  kind: RecordKind,
  index: string,
  range: { min: string; max: string; limit: number; keep: (record: T) => boolean },
): Promise<T[]> {
  const out: T[] = [];
  let offset = 0;
  while (out.length < range.limit) {
    // Ask for what is still missing: index and records agree except for a record changed in between.
    const batch = Math.min(SCAN_BATCH, range.limit - out.length);
    const ids = await redis.command<string[]>([
      "ZRANGEBYSCORE",
      index,
      range.min,
      range.max,
      "LIMIT",
      String(offset),
      String(batch),
    ]);
    offset += ids.length;
    const records = await Promise.all(ids.map((id) => readRecord<T>(redis, kind, id)));
    for (const record of records) {
      if (record !== null && range.keep(record) && out.length < range.limit) out.push(record);
    }
    if (ids.length < batch) break;
  }
  return out;
}
