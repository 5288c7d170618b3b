/**
 * How `KvTable` lays a record out in keys: its value as is when small, else a stub (`$blob` plus the indexed
 * fields) and its JSON split into chunks under 64 KiB, read back in groups of `kv.getMany`'s 10 keys; and
 * which keys a range of an index covers. Internal to the Deno KV store.
 *
 * @module
 */

import { MAX_VALUE_BYTES } from "./budget.ts";

/** Where the chunks of a large record are. */
export interface BlobRef {
  gen: string;
  chunks: number;
  bytes: number;
}

/** A record as stored under its primary key: the record itself or its stub. */
export type Stored = Record<string, unknown>;

/** A record ready to write: its stored value, its chunks, and how many were written ahead. */
export interface Encoded {
  value: Stored;
  valueBytes: number;
  chunks: Uint8Array[];
  ref?: BlobRef;
  /** Chunks written before the final operation (they did not fit in it). */
  early: number;
}

/** Chunk size: under the 64 KiB value limit with room for the encoding's header. */
const CHUNK_BYTES = 60_000;
/** A record whose JSON is this small is stored as is (its V8 serialisation is at most ~3× its JSON). */
const INLINE_MAX_BYTES = 16_384;
/** Chunks written in the final, guarded operation; the rest go in earlier operations. */
const FINAL_CHUNKS = 8;
/** Chunks per operation written ahead of the final one. */
export const EARLY_CHUNKS_PER_OP = 12;
/** `kv.getMany` takes at most 10 keys. */
export const GET_MANY_MAX = 10;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The chunk reference of a stored value, when it is a stub. */
export function blobOf(stored: Stored): BlobRef | undefined {
  const ref = stored.$blob as BlobRef | undefined;
  return ref !== undefined && typeof ref === "object" ? ref : undefined;
}

/** `kv.getMany` for any number of keys, in groups of {@link GET_MANY_MAX}. */
export async function getMany<V>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<V>[]> {
  const groups: Promise<Deno.KvEntryMaybe<V>[]>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_MAX) {
    groups.push(kv.getMany<V[]>(keys.slice(i, i + GET_MANY_MAX)) as Promise<Deno.KvEntryMaybe<V>[]>);
  }
  return (await Promise.all(groups)).flat();
}

/** The record the chunks spell, or null when one is missing (replaced since the stub was read). */
export function joinChunks<T>(parts: Deno.KvEntryMaybe<Uint8Array>[], ref: BlobRef): T | null {
  const bytes = new Uint8Array(ref.bytes);
  let offset = 0;
  for (const part of parts) {
    if (part.value === null) return null;
    bytes.set(part.value, offset);
    offset += part.value.length;
  }
  return JSON.parse(decoder.decode(bytes)) as T;
}

/**
 * Encode `record` (`what` names it in errors): as is when small enough, else a stub keeping `stubFields`
 * and the JSON's chunks; `early` counts the chunks the final operation has no room for.
 */
export function encodeRecord(
  record: object,
  what: string,
  stubFields: readonly string[],
  maxRecordBytes: number,
): Encoded {
  let json: string;
  try {
    json = JSON.stringify(record);
  } catch (error) {
    throw new TypeError(
      `Cannot save ${what}: it is not JSON-serialisable (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
  if (json.length * 3 <= INLINE_MAX_BYTES) {
    return { value: record as Stored, valueBytes: json.length * 3, chunks: [], early: 0 };
  }
  const bytes = encoder.encode(json);
  if (bytes.length <= INLINE_MAX_BYTES) {
    return {
      value: record as Stored,
      valueBytes: Math.min(MAX_VALUE_BYTES, bytes.length * 3),
      chunks: [],
      early: 0,
    };
  }
  if (bytes.length > maxRecordBytes) {
    throw new RangeError(
      `Cannot save ${what}: it takes ${bytes.length} bytes as JSON, ` +
        `more than the ${maxRecordBytes} allowed (maxRecordBytes); send large media by URL`,
    );
  }
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) {
    chunks.push(bytes.subarray(offset, offset + CHUNK_BYTES));
  }
  const ref: BlobRef = {
    gen: crypto.randomUUID().replaceAll("-", "").slice(0, 16),
    chunks: chunks.length,
    bytes: bytes.length,
  };
  const stub: Stored = { $blob: ref };
  for (const field of stubFields) stub[field] = (record as Stored)[field];
  const early = Math.max(0, chunks.length - FINAL_CHUNKS);
  return { value: stub, valueBytes: 512, chunks, ref, early };
}

/** A range of an index: keys after `after` (exclusive) and with a sort time before `before`. */
export interface IndexRange {
  /** Only entries whose first sort part (a time) is below this. */
  before?: number;
  /** Only entries after this one: `[time, ...id]`. */
  after?: (string | number)[];
}

/** The listing of `range` under the index key `prefix` (`start` is excluded); null when it is empty. */
export function rangeSelector(
  prefix: Deno.KvKey,
  range: IndexRange,
): { selector: Deno.KvListSelector; start?: Deno.KvKey } | null {
  if (range.after !== undefined && range.before !== undefined && Number(range.after[0]) >= range.before) {
    return null;
  }
  const start = range.after === undefined ? undefined : [...prefix, ...range.after];
  const end = range.before === undefined ? undefined : [...prefix, range.before];
  const selector: Deno.KvListSelector = start && end
    ? { start, end }
    : start
    ? { prefix, start }
    : end
    ? { prefix, end }
    : { prefix };
  return { selector, start };
}
