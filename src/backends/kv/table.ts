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

import { AtomicBudget, keyBytes } from "./budget.ts";
import { withBusyRetry } from "./busy.ts";
import {
  blobOf,
  type BlobRef,
  EARLY_CHUNKS_PER_OP,
  type Encoded,
  encodeRecord,
  GET_MANY_MAX,
  getMany,
  type IndexRange,
  joinChunks,
  rangeSelector,
  type Stored,
} from "./table_layout.ts";

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

const PRUNE_BATCH = 100;
const MAX_ATTEMPTS = 25;

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
    return joinChunks<T>(await getMany<Uint8Array>(this.#kv, this.#blobKeys(id, ref)), ref);
  }

  /** Create or replace a record; with `ifAbsent`, only create it (false when one exists). */
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
    const what = `${this.#spec.label} record "${idText(id)}"`;
    const encoded = encodeRecord(record, what, this.#spec.stubFields, this.#maxRecordBytes);
    const { ref, chunks, early } = encoded;
    if (ref === undefined || early === 0) return encoded;
    const keys = this.#blobKeys(id, ref);
    try {
      for (let i = 0; i < early; i += EARLY_CHUNKS_PER_OP) {
        const op = this.#kv.atomic();
        for (let j = i; j < Math.min(early, i + EARLY_CHUNKS_PER_OP); j++) op.set(keys[j], chunks[j]);
        const result = await commitRetryingBusy(op);
        if (!result.ok) {
          throw new Error(`Cannot save ${what}: chunk write failed`);
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
    const listed = rangeSelector(this.#indexKey(index), range);
    if (listed === null) return out;
    const { selector, start } = listed;
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
