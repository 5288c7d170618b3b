/**
 * A chat's dialogue in the store: the record (`conversation` / `<instance>:<chat id>`) names its sealed
 * chunks (`conversation-log` / `<instance>:<chat id>#<id>`). A chunk is written once, under a random id,
 * before the record (compare-and-set) that names it: the record alone decides, and a losing writer leaves
 * only unnamed chunks (deleted at the next end or start). A record expires at its deadline, its chunks a
 * week later.
 *
 * @module
 */

import { getGatewayLogger } from "../../log.ts";
import { WebhookPayloadDto } from "../../webhooks/payload.ts";
import { MAX_STATE_VALUE_BYTES, type StateStore } from "../../store/state.ts";
import { StateConflictException } from "../state_conflict.ts";
import type { LogEntry } from "./replay.ts";
import { migrate } from "./migrate_v1.ts";
import { type ChunkRef, type ConversationRecord, deepFreeze, type StoredWait } from "./stored.ts";

export const NAMESPACE = "conversation";
export const CHUNK_NAMESPACE = "conversation-log";
/** The stored format this code writes. */
const FORMAT = 2;
/** The record's own steps are sealed into a chunk once they pass this many bytes as JSON. */
const TAIL_BYTES = 16 * 1024;
/** The most a chunk holds, as JSON. */
const CHUNK_BYTES = 40 * 1024;
/** The most chunks a dialogue has: past them, it cannot be stored. */
export const MAX_CHUNKS = 64;

/** How long a chunk outlives its record's deadline (no one is left to delete it then). */
const CHUNK_GRACE_MS = 7 * 24 * 60 * 60_000;

/** The expiry of a chunk written when the record's deadline is `deadline` (none without a deadline). */
function chunkExpiry(deadline: number | undefined): number | undefined {
  return deadline === undefined ? undefined : deadline + CHUNK_GRACE_MS;
}

/** A dialogue as read: its record, the record's version, and the whole log. */
export interface LoadedDialogue {
  record: ConversationRecord;
  version: string;
  log: LogEntry[];
}

/** What to store after a run. */
export interface DialogueState {
  /** Whether this continues the dialogue that was read (its sealed chunks stay), or replaces it. */
  continues: boolean;
  name: string;
  version: string;
  enter: StoredWait;
  log: readonly LogEntry[];
  deadline?: number;
}

const encoder = new TextEncoder();
const bytesOf = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength;

/** A dialogue that cannot be stored: it was dropped (the error says why). */
export class DialogueTooLargeError extends RangeError {
  constructor(name: string, key: string, reason: string) {
    super(`Cannot store conversation "${name}" of ${key}: ${reason}; the dialogue is dropped`);
    this.name = "RangeError";
  }
}

/** One chat's dialogue in the store. */
export class DialogueRecords {
  readonly #state: StateStore;
  readonly #key: string;

  constructor(state: StateStore, key: string) {
    this.#state = state;
    this.#key = key;
  }

  /** The chat's dialogue, or null (a record that cannot be read is dropped, with a log line). */
  async load(): Promise<LoadedDialogue | null> {
    const entry = await this.#state.get<Record<string, unknown>>(NAMESPACE, this.#key);
    if (entry === null) return null;
    const record = entry.value.v === FORMAT ? readable(entry.value) : migrate(entry.value);
    if (record === undefined) return await this.#unreadable(entry.version, "its stored format is unknown");
    const chunks = await Promise.all((record.chunks ?? []).map((chunk) => this.#chunk(chunk.id)));
    if (chunks.some((chunk) => chunk === null)) {
      return await this.#unreadable(entry.version, "a part of its log is missing or damaged");
    }
    const log = [...chunks.flatMap((chunk) => chunk!), ...record.log];
    return { record, version: entry.version, log };
  }

  /**
   * Store `next` over `loaded` (compare-and-set). Throws `StateConflictException` when the record changed
   * meanwhile, and `DialogueTooLargeError` (after dropping the dialogue) when it cannot be stored.
   */
  async save(loaded: LoadedDialogue | null, next: DialogueState): Promise<LoadedDialogue> {
    const chunks = loaded !== null && next.continues ? [...loaded.record.chunks ?? []] : [];
    const written: string[] = [];
    try {
      let tail = next.log.slice(chunks.reduce((sum, chunk) => sum + chunk.n, 0));
      if (bytesOf(tail) > TAIL_BYTES) tail = await this.#seal(tail, chunks, written, next);
      await this.#extend(chunks, next.deadline);
      const record: ConversationRecord = {
        v: FORMAT,
        name: next.name,
        version: next.version,
        enter: next.enter,
        log: tail,
      };
      if (chunks.length > 0) record.chunks = chunks;
      if (next.deadline !== undefined) record.deadline = next.deadline;
      if (bytesOf(record) > MAX_STATE_VALUE_BYTES) {
        throw this.#tooLarge(next.name, `its record is over ${MAX_STATE_VALUE_BYTES} bytes as JSON`);
      }
      const version = await this.#state.set(NAMESPACE, this.#key, record, {
        expectedVersion: loaded?.version ?? null,
        expiresAt: next.deadline,
      });
      if (version === null) throw new StateConflictException("conversation", this.#key);
      // A dialogue that replaced another (or a timed-out one whose chunks stayed): those chunks go.
      if (!next.continues) await this.#sweep(chunks.map((chunk) => chunk.id));
      return { record, version, log: [...next.log] };
    } catch (error) {
      await Promise.all(
        written.map((id) => this.#state.delete(CHUNK_NAMESPACE, this.#chunkKey(id)).catch(() => {})),
      );
      if (error instanceof DialogueTooLargeError) await this.drop(loaded).catch(() => {});
      throw error;
    }
  }

  /** Write `tail`'s steps as new chunks (appended to `chunks`, their ids to `written`); none are left. */
  async #seal(
    tail: readonly LogEntry[],
    chunks: ChunkRef[],
    written: string[],
    next: DialogueState,
  ): Promise<LogEntry[]> {
    const until = chunkExpiry(next.deadline);
    for (const part of pack(tail, (reason) => this.#tooLarge(next.name, reason))) {
      if (chunks.length >= MAX_CHUNKS) {
        throw this.#tooLarge(
          next.name,
          `its log needs more than ${MAX_CHUNKS} parts of ${CHUNK_BYTES} bytes`,
        );
      }
      const id = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
      const key = this.#chunkKey(id);
      const ok = await this.#state.set(CHUNK_NAMESPACE, key, part, {
        expectedVersion: null,
        expiresAt: until,
      });
      if (ok === null) throw new StateConflictException("conversation", this.#key);
      written.push(id);
      cacheChunk(this.#state, key, part);
      chunks.push(until === undefined ? { id, n: part.length } : { id, n: part.length, until });
    }
    return [];
  }

  /** Keep the chunks alive {@link CHUNK_GRACE_MS} / 2 past the record's new deadline (or forever without). */
  async #extend(chunks: ChunkRef[], deadline: number | undefined): Promise<void> {
    const until = chunkExpiry(deadline);
    const stale = (chunk: ChunkRef) =>
      chunk.until !== undefined && (until === undefined || chunk.until < deadline! + CHUNK_GRACE_MS / 2);
    await Promise.all(chunks.map(async (chunk, index) => {
      if (!stale(chunk)) return;
      const entries = await this.#chunk(chunk.id);
      if (entries === null) throw new StateConflictException("conversation", this.#key);
      await this.#state.set(CHUNK_NAMESPACE, this.#chunkKey(chunk.id), entries, { expiresAt: until });
      chunks[index] = until === undefined ? { id: chunk.id, n: chunk.n } : { ...chunk, until };
    }));
  }

  /** End the dialogue read as `loaded` (compare-and-set): its record, then its chunks. */
  async drop(loaded: LoadedDialogue | null): Promise<void> {
    if (loaded === null) return;
    if (!await this.#state.delete(NAMESPACE, this.#key, { expectedVersion: loaded.version })) {
      if ((await this.#state.get(NAMESPACE, this.#key)) !== null) {
        throw new StateConflictException("conversation", this.#key);
      }
    }
    await this.#sweep([]);
  }

  /** End whatever dialogue the chat has (`ctx.conversation.exit()`); true when one was stored. */
  async clear(): Promise<boolean> {
    const deleted = await this.#state.delete(NAMESPACE, this.#key);
    await this.#sweep([]);
    return deleted;
  }

  /** Delete the chat's chunks that `keep` does not name. */
  async #sweep(keep: readonly string[]): Promise<void> {
    const prefix = `${this.#key}#`;
    const found = await this.#state.list(CHUNK_NAMESPACE, { prefix });
    const kept = new Set(keep.map((id) => this.#chunkKey(id)));
    await Promise.all(
      found.filter((entry) => !kept.has(entry.key)).map((entry) =>
        this.#state.delete(CHUNK_NAMESPACE, entry.key)
      ),
    );
  }

  async #unreadable(version: string, reason: string): Promise<null> {
    getGatewayLogger("bot", "conversation").warn("Dropped conversation of {key}: {reason}", {
      key: this.#key,
      reason,
    });
    await this.#state.delete(NAMESPACE, this.#key, { expectedVersion: version });
    await this.#sweep([]);
    return null;
  }

  /** A sealed chunk's steps: cached (chunks never change), else read and checked (null: missing, damaged). */
  async #chunk(id: string): Promise<readonly LogEntry[] | null> {
    const key = this.#chunkKey(id);
    const cached = chunkCache.get(this.#state)?.get(key);
    if (cached !== undefined) return cached;
    const entry = await this.#state.get<unknown>(CHUNK_NAMESPACE, key);
    return entry === null || !isLog(entry.value) ? null : cacheChunk(this.#state, key, entry.value);
  }

  #tooLarge(name: string, reason: string): DialogueTooLargeError {
    return new DialogueTooLargeError(name, this.#key, reason);
  }

  #chunkKey(id: string): string {
    return `${this.#key}#${id}`;
  }
}

/**
 * A stored value of the current format as a record, or undefined when it is damaged (a hand-made or partial
 * write): read as is, it would fail every message of its chat.
 */
function readable(value: Record<string, unknown>): ConversationRecord | undefined {
  const { name, version, enter, log, chunks, deadline } = value;
  if (typeof name !== "string" || typeof version !== "string" || !isWait(enter) || !isLog(log)) {
    return undefined;
  }
  if (deadline !== undefined && typeof deadline !== "number") return undefined;
  if (chunks !== undefined && !(Array.isArray(chunks) && chunks.every(isChunkRef))) return undefined;
  return value as unknown as ConversationRecord;
}

function isLog(value: unknown): value is LogEntry[] {
  return Array.isArray(value) &&
    value.every((entry) =>
      isObject(entry) && ("wait" in entry ? isWait(entry.wait) : typeof entry.call === "string")
    );
}

/** A stored wait whose webhook can be rebuilt (replaying one that cannot would fail every message). */
function isWait(value: unknown): boolean {
  return isObject(value) && WebhookPayloadDto.from(value.r) !== null && typeof value.t === "number";
}

function isChunkRef(value: unknown): boolean {
  return isObject(value) && typeof value.id === "string" && Number.isSafeInteger(value.n) &&
    (value.n as number) >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Chunks this process read or wrote, per store (never changed), the newest {@link CACHED_CHUNKS}. */
const chunkCache = new WeakMap<StateStore, Map<string, readonly LogEntry[]>>();
const CACHED_CHUNKS = 256;

function cacheChunk(state: StateStore, key: string, entries: readonly LogEntry[]): readonly LogEntry[] {
  let cache = chunkCache.get(state);
  if (cache === undefined) chunkCache.set(state, cache = new Map());
  cache.delete(key);
  cache.set(key, deepFreeze(entries));
  if (cache.size > CACHED_CHUNKS) cache.delete(cache.keys().next().value!);
  return entries;
}

/** Split `entries` into parts of at most {@link CHUNK_BYTES} as JSON, in order. */
function pack(entries: readonly LogEntry[], tooLarge: (reason: string) => Error): LogEntry[][] {
  const parts: LogEntry[][] = [];
  let part: LogEntry[] = [];
  let size = 2;
  for (const entry of entries) {
    const bytes = bytesOf(entry);
    if (bytes + 2 > CHUNK_BYTES) {
      throw tooLarge(`one of its steps is ${bytes} bytes as JSON, over ${CHUNK_BYTES}`);
    }
    if (size + bytes + 1 > CHUNK_BYTES) {
      parts.push(part);
      part = [];
      size = 2;
    }
    part.push(entry);
    size += bytes + 1;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}
