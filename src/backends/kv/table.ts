/**
 * One record kind in Deno KV: a primary key per record, secondary index keys that point back to it, and
 * large records split into chunks. Every write of a record, its index keys and its chunks is one atomic
 * operation guarded by the primary key's versionstamp, so readers never see an index that disagrees
 * with its record.
 *
 * Layout under `[...prefix, name]`:
 * - `["rec", ...id]` → the record, or for a large one a stub (`$blob` plus the indexed fields)
 * - `[index, ...parts, ...id]` → null, one key per index (`by_time` is the one `prune` walks)
 * - `["blob", ...id, gen, n]` → chunk `n` of the record's JSON (UTF-8); `gen` is new on every write
 *
 * @module
 */

import { AtomicBudget, keyBytes, MAX_VALUE_BYTES } from "./budget.ts";
import { withBusyRetry } from "./busy.ts";

/** A key part the tables use. */
export type KeyPart = string | number;

/** How a record kind maps to keys. */
export interface TableSpec<T> {
  /** Key segment, e.g. `outbound`. */
  name: string;
  /** Name used in error messages, e.g. `outbound`, `webhook log`. */
  label: string;
  /** How many key parts the id has. */
  idLength: number;
  /** The record's id parts. */
  id(record: T): KeyPart[];
  /**
   * Index keys relative to the table, each `[indexName, ...sortParts, ...id]`. Must include
   * `["by_time", time, ...id]`, the index `prune` walks.
   */
  indexes(record: T): KeyPart[][];
  /** Fields kept in the stub of a chunked record: every field `id` and `indexes` read. */
  stubFields: readonly string[];
}

/** Where the chunks of a large record are. */
interface BlobRef {
  gen: string;
  chunks: number;
  bytes: number;
}

type Stored = Record<string, unknown>;

interface Encoded {
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
const EARLY_CHUNKS_PER_OP = 12;
/** `kv.getMany` takes at most 10 keys. */
const GET_MANY_MAX = 10;
const PRUNE_BATCH = 100;
const MAX_ATTEMPTS = 25;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function blobOf(stored: Stored): BlobRef | undefined {
  const ref = stored.$blob as BlobRef | undefined;
  return ref !== undefined && typeof ref === "object" ? ref : undefined;
}

// Every write of the tables goes through the busy-retry policy: a busy file slows writers, never fails them.
function commitRetryingBusy(op: Deno.AtomicOperation): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  return withBusyRetry(() => op.commit());
}

function sameKey(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

function idText(id: KeyPart[]): string {
  return id.join("/");
}

async function getMany<V>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<V>[]> {
  const groups: Promise<Deno.KvEntryMaybe<V>[]>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_MAX) {
    groups.push(kv.getMany<V[]>(keys.slice(i, i + GET_MANY_MAX)) as Promise<Deno.KvEntryMaybe<V>[]>);
  }
  return (await Promise.all(groups)).flat();
}

/** A range of an index: keys after `after` (exclusive) and with a sort time before `before`. */
export interface IndexRange {
  /** Only entries whose first sort part (a time) is below this. */
  before?: number;
  /** Only entries after this one: `[time, ...id]`. */
  after?: KeyPart[];
}

/** One record kind stored in Deno KV (see the module documentation for the layout). */
export class KvTable<T extends object> {
  readonly #kv: Deno.Kv;
  readonly #base: Deno.KvKey;
  readonly #spec: TableSpec<T>;
  readonly #maxRecordBytes: number;

  constructor(kv: Deno.Kv, prefix: Deno.KvKey, spec: TableSpec<T>, maxRecordBytes: number) {
    this.#kv = kv;
    this.#base = [...prefix, spec.name];
    this.#spec = spec;
    this.#maxRecordBytes = maxRecordBytes;
  }

  #primaryKey(id: KeyPart[]): Deno.KvKey {
    return [...this.#base, "rec", ...id];
  }

  #indexKey(relative: KeyPart[]): Deno.KvKey {
    return [...this.#base, ...relative];
  }

  #blobKeys(id: KeyPart[], ref: BlobRef, from = 0): Deno.KvKey[] {
    const keys: Deno.KvKey[] = [];
    for (let i = from; i < ref.chunks; i++) keys.push([...this.#base, "blob", ...id, ref.gen, i]);
    return keys;
  }

  #indexesOf(stored: Stored): KeyPart[][] {
    return this.#spec.indexes(stored as T);
  }

  /** Read a record by id. */
  async get(id: KeyPart[]): Promise<T | null> {
    return (await this.#load(id))?.record ?? null;
  }

  async #load(id: KeyPart[]): Promise<{ record: T; stored: Stored; versionstamp: string } | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await this.#kv.get<Stored>(this.#primaryKey(id));
      if (entry.value === null || entry.versionstamp === null) return null;
      const record = await this.#resolve(id, entry.value);
      if (record !== null) return { record, stored: entry.value, versionstamp: entry.versionstamp };
    }
    throw new Error(`Cannot read ${this.#spec.label} record "${idText(id)}": it keeps changing`);
  }

  /** The full record of a stored value, or null when its chunks were replaced since it was read. */
  async #resolve(id: KeyPart[], stored: Stored): Promise<T | null> {
    const ref = blobOf(stored);
    if (ref === undefined) return stored as T;
    const parts = await getMany<Uint8Array>(this.#kv, this.#blobKeys(id, ref));
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
   * Create or replace a record (with `ifAbsent`, only create it). Returns false when `ifAbsent` found
   * one already.
   */
  async save(record: T, options: { ifAbsent?: boolean } = {}): Promise<boolean> {
    const id = this.#spec.id(record);
    const encoded = await this.#prepare(record, id);
    let committed = false;
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await this.#kv.get<Stored>(this.#primaryKey(id));
        if (options.ifAbsent && current.value !== null) return false;
        if (await this.#commit(id, record, encoded, current.value, current.versionstamp)) {
          committed = true;
          return true;
        }
      }
      throw new Error(`Cannot save ${this.#spec.label} record "${idText(id)}": it keeps changing`);
    } finally {
      if (!committed) await this.#discard(id, encoded);
    }
  }

  /**
   * Replace a record with `change(current)`, atomically: when the record changed between the read and
   * the write, the change is computed again on the new version. `change` returns null to give up.
   */
  async update(id: KeyPart[], change: (current: T) => T | null): Promise<T | null> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const loaded = await this.#load(id);
      if (loaded === null) return null;
      const next = change(loaded.record);
      if (next === null) return null;
      const encoded = await this.#prepare(next, id);
      let committed = false;
      try {
        committed = await this.#commit(id, next, encoded, loaded.stored, loaded.versionstamp);
      } finally {
        if (!committed) await this.#discard(id, encoded);
      }
      if (committed) return next;
    }
    throw new Error(`Cannot update ${this.#spec.label} record "${idText(id)}": it keeps changing`);
  }

  /** Encode a record; chunks that will not fit in the final operation are written now. */
  async #prepare(record: T, id: KeyPart[]): Promise<Encoded> {
    let json: string;
    try {
      json = JSON.stringify(record);
    } catch (error) {
      throw new TypeError(
        `Cannot save ${this.#spec.label} record "${idText(id)}": it is not JSON-serialisable (${
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
    if (bytes.length > this.#maxRecordBytes) {
      throw new RangeError(
        `Cannot save ${this.#spec.label} record "${idText(id)}": it takes ${bytes.length} bytes as JSON, ` +
          `more than the ${this.#maxRecordBytes} allowed (maxRecordBytes); send large media by URL`,
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
    for (const field of this.#spec.stubFields) stub[field] = (record as Stored)[field];
    const early = Math.max(0, chunks.length - FINAL_CHUNKS);
    const keys = this.#blobKeys(id, ref);
    const encoded: Encoded = { value: stub, valueBytes: 512, chunks, ref, early };
    try {
      for (let i = 0; i < early; i += EARLY_CHUNKS_PER_OP) {
        const op = this.#kv.atomic();
        for (let j = i; j < Math.min(early, i + EARLY_CHUNKS_PER_OP); j++) op.set(keys[j], chunks[j]);
        const result = await commitRetryingBusy(op);
        if (!result.ok) {
          throw new Error(`Cannot save ${this.#spec.label} record "${idText(id)}": chunk write failed`);
        }
      }
    } catch (error) {
      await this.#discard(id, encoded);
      throw error;
    }
    return encoded;
  }

  /** Remove chunks written early for a write that did not happen. */
  async #discard(id: KeyPart[], encoded: Encoded): Promise<void> {
    if (encoded.ref === undefined || encoded.early === 0) return;
    await this.#deleteKeys(this.#blobKeys(id, encoded.ref).slice(0, encoded.early));
  }

  async #deleteKeys(keys: Deno.KvKey[]): Promise<void> {
    let op = this.#kv.atomic();
    let budget = new AtomicBudget();
    for (const key of keys) {
      const size = keyBytes(key);
      if (!budget.fits(1, 0, size, 0)) {
        await commitRetryingBusy(op);
        op = this.#kv.atomic();
        budget = new AtomicBudget();
      }
      op.delete(key);
      budget.add(1, 0, size, 0);
    }
    if (!budget.empty) await commitRetryingBusy(op);
  }

  /** The guarded write: record, index changes, final chunks, the old version's chunks. */
  async #commit(
    id: KeyPart[],
    next: T,
    encoded: Encoded,
    current: Stored | null,
    versionstamp: string | null,
  ): Promise<boolean> {
    const budget = new AtomicBudget();
    const primary = this.#primaryKey(id);
    const op = this.#kv.atomic().check({ key: primary, versionstamp }).set(primary, encoded.value);
    budget.add(1, 1, keyBytes(primary) * 2, encoded.valueBytes);
    const before = current === null ? [] : this.#indexesOf(current);
    const after = this.#spec.indexes(next);
    for (const relative of before) {
      if (after.some((other) => sameKey(other, relative))) continue;
      const key = this.#indexKey(relative);
      op.delete(key);
      budget.add(1, 0, keyBytes(key), 0);
    }
    for (const relative of after) {
      if (before.some((other) => sameKey(other, relative))) continue;
      const key = this.#indexKey(relative);
      op.set(key, null);
      budget.add(1, 0, keyBytes(key), 1);
    }
    if (encoded.ref !== undefined) {
      const keys = this.#blobKeys(id, encoded.ref, encoded.early);
      keys.forEach((key, i) => {
        const chunk = encoded.chunks[encoded.early + i];
        op.set(key, chunk);
        budget.add(1, 0, keyBytes(key), chunk.length);
      });
    }
    const oldRef = current === null ? undefined : blobOf(current);
    const later: Deno.KvKey[] = [];
    if (oldRef !== undefined && oldRef.gen !== encoded.ref?.gen) {
      for (const key of this.#blobKeys(id, oldRef)) {
        const size = keyBytes(key);
        if (budget.fits(1, 0, size, 0)) {
          op.delete(key);
          budget.add(1, 0, size, 0);
        } else later.push(key);
      }
    }
    const result = await commitRetryingBusy(op);
    if (!result.ok) return false;
    // Unreferenced since the commit: deleting them late only delays freeing space.
    if (later.length > 0) await this.#deleteKeys(later);
    return true;
  }

  /** Records of an index, in index order (oldest first for time-sorted indexes). */
  async list(index: KeyPart[], range: IndexRange, limit: number): Promise<T[]> {
    const out: T[] = [];
    if (limit <= 0) return out;
    if (range.after !== undefined && range.before !== undefined && Number(range.after[0]) >= range.before) {
      return out;
    }
    const prefix = this.#indexKey(index);
    const start = range.after === undefined ? undefined : [...prefix, ...range.after];
    const end = range.before === undefined ? undefined : [...prefix, range.before];
    const selector: Deno.KvListSelector = start && end
      ? { start, end }
      : start
      ? { prefix, start }
      : end
      ? { prefix, end }
      : { prefix };
    let pending: Deno.KvKey[] = [];
    const flush = async () => {
      const relatives = pending.map((key) => key.slice(this.#base.length) as KeyPart[]);
      pending = [];
      const ids = relatives.map((relative) => relative.slice(-this.#spec.idLength));
      const entries = await getMany<Stored>(this.#kv, ids.map((id) => this.#primaryKey(id)));
      const resolved = await Promise.all(entries.map(async (entry, i) => {
        if (entry.value === null) return null;
        // The index entry may be older than the record (read at different moments): keep the record
        // only if it still has this index entry.
        if (!this.#indexesOf(entry.value).some((relative) => sameKey(relative, relatives[i]))) return null;
        const record = await this.#resolve(ids[i], entry.value);
        if (record !== null) return record;
        const loaded = await this.#load(ids[i]);
        if (loaded === null) return null;
        return this.#spec.indexes(loaded.record).some((relative) => sameKey(relative, relatives[i]))
          ? loaded.record
          : null;
      }));
      for (const record of resolved) if (record !== null) out.push(record);
    };
    const batchSize = Number.isFinite(limit) ? Math.min(500, Math.max(GET_MANY_MAX, limit)) : 500;
    for await (const entry of this.#kv.list<null>(selector, { batchSize })) {
      if (start !== undefined && sameKey(entry.key, start)) continue;
      pending.push(entry.key);
      if (pending.length >= Math.min(100, Math.max(GET_MANY_MAX, limit - out.length))) {
        await flush();
        if (out.length >= limit) break;
      }
    }
    if (pending.length > 0 && out.length < limit) await flush();
    return out.slice(0, limit);
  }

  /**
   * Delete (or with `dryRun` count) the records whose `by_time` entry is before `before`, in batches
   * that fit one atomic operation each; each record's deletion is guarded by its versionstamp.
   */
  async prune(before: number, dryRun: boolean): Promise<number> {
    const prefix = this.#indexKey(["by_time"]);
    const selector: Deno.KvListSelector = { prefix, end: [...prefix, before] };
    if (dryRun) {
      let count = 0;
      for await (const _ of this.#kv.list<null>(selector, { batchSize: 500 })) count++;
      return count;
    }
    let removed = 0;
    let idle = 0;
    while (true) {
      const keys: Deno.KvKey[] = [];
      for await (const entry of this.#kv.list<null>(selector, { limit: PRUNE_BATCH })) keys.push(entry.key);
      if (keys.length === 0) return removed;
      const progress = await this.#pruneBatch(keys);
      removed += progress.removed;
      idle = progress.removed + progress.cleaned === 0 ? idle + 1 : 0;
      if (idle >= MAX_ATTEMPTS) {
        throw new Error(`Cannot prune ${this.#spec.label} records: they keep changing`);
      }
    }
  }

  async #pruneBatch(indexKeys: Deno.KvKey[]): Promise<{ removed: number; cleaned: number }> {
    const relatives = indexKeys.map((key) => key.slice(this.#base.length) as KeyPart[]);
    const ids = relatives.map((relative) => relative.slice(-this.#spec.idLength));
    const entries = await getMany<Stored>(this.#kv, ids.map((id) => this.#primaryKey(id)));
    let removed = 0;
    let cleaned = 0;
    let op = this.#kv.atomic();
    let budget = new AtomicBudget();
    let inOp = 0;
    const flush = async () => {
      if (budget.empty) return;
      const result = await commitRetryingBusy(op);
      // A failed check means a record changed meanwhile: the next listing sees its new state.
      if (result.ok) removed += inOp;
      op = this.#kv.atomic();
      budget = new AtomicBudget();
      inOp = 0;
    };
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry.value === null || entry.versionstamp === null) {
        // An index entry without its record cannot come from our atomic writes; remove it all the same.
        await commitRetryingBusy(
          this.#kv.atomic().check({ key: entry.key, versionstamp: null }).delete(indexKeys[i]),
        );
        cleaned++;
        continue;
      }
      const indexes = this.#indexesOf(entry.value);
      if (!indexes.some((relative) => sameKey(relative, relatives[i]))) {
        // A stale entry (the record moved meanwhile, or a foreign writer left it): drop it unless the
        // record changes again, so the next listing does not find it forever.
        await commitRetryingBusy(this.#kv.atomic().check(entry).delete(indexKeys[i]));
        cleaned++;
        continue;
      }
      const ref = blobOf(entry.value);
      const keys = [
        entry.key,
        ...indexes.map((relative) => this.#indexKey(relative)),
        ...(ref === undefined ? [] : this.#blobKeys(ids[i], ref)),
      ];
      const size = keys.reduce((sum, key) => sum + keyBytes(key), 0) + keyBytes(entry.key);
      if (!budget.fits(keys.length, 1, size, 0)) await flush();
      if (!budget.fits(keys.length, 1, size, 0)) {
        throw new Error(
          `Cannot prune ${this.#spec.label} record "${idText(ids[i])}": too many keys for one operation`,
        );
      }
      op.check(entry);
      for (const key of keys) op.delete(key);
      budget.add(keys.length, 1, size, 0);
      inOp++;
    }
    await flush();
    return { removed, cleaned };
  }
}
