/**
 * Redelivery detection. The server retries a webhook up to 10 times, and retries can race each other, so a
 * delivery is processed only after an atomic claim on its key (the `webhook-id`, or a digest of the raw
 * body). A claim is first a short lease (processing), then a record for the window (processed); a failed
 * processing gives the claim back so that the next retry runs.
 *
 * Each record stores its own expiry time: Deno KV's `expireIn` deletes lazily, so an expired record may
 * still be read and must not count.
 *
 * @module
 */

import { WebhookException } from "../errors.ts";

/** Atomic claims on delivery keys. Implement it to keep claims elsewhere (Redis, a database). */
export interface WebhookDedupe {
  /**
   * Claim `key` atomically: true when this delivery should be processed; false when another delivery with
   * the same key is being processed or was processed within the window.
   */
  claim(key: string, now: number): Promise<boolean>;
  /** The claimed delivery was processed (or queued): refuse duplicates until `now` + window. */
  complete(key: string, now: number): Promise<void>;
  /** Processing failed: drop the claim so that the next delivery is processed. */
  release(key: string): Promise<void>;
  /**
   * Where a refused key stands: `processing` (another delivery holds the claim and may still fail) or
   * `done`. Optional: without it every refusal is treated as `done`.
   */
  state?(key: string, now: number): Promise<"processing" | "done" | null>;
}

/** Timing of dedupe records. */
export interface WebhookDedupeOptions {
  /** How long a processed delivery is remembered, in seconds (default 3600: longer than the server's retries). */
  window_seconds?: number;
  /** How long a claim in progress holds before another delivery may take it over, in seconds (default 120). */
  lease_seconds?: number;
}

interface DedupeRecord {
  state: "processing" | "done";
  expiresAt: number;
}

function seconds(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new WebhookException(
      `Invalid webhook configuration: "dedupe.${name}" must be a number > 0, got ${String(value)}`,
    );
  }
  return value * 1000;
}

/**
 * Claims kept in this isolate's memory: exact within one process (a claim is a synchronous check-and-set),
 * bounded in size. Use {@link KvWebhookDedupe} when several processes receive webhooks.
 *
 * @example
 * ```ts
 * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
 * const dedupe = new MemoryWebhookDedupe({ window_seconds: 600 });
 * await dedupe.claim("evt_1", Date.now()); // true
 * await dedupe.claim("evt_1", Date.now()); // false
 * ```
 */
export class MemoryWebhookDedupe implements WebhookDedupe {
  readonly #records = new Map<string, DedupeRecord>();
  readonly #window: number;
  readonly #lease: number;
  readonly #maxEntries: number;

  /**
   * Create an empty set of claims; at most `max_entries` (default 100 000) are kept, oldest dropped first.
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * new MemoryWebhookDedupe({ window_seconds: 3600, max_entries: 10_000 });
   * ```
   */
  constructor(options: WebhookDedupeOptions & { max_entries?: number } = {}) {
    this.#window = seconds("window_seconds", options.window_seconds, 3600);
    this.#lease = seconds("lease_seconds", options.lease_seconds, 120);
    this.#maxEntries = options.max_entries ?? 100_000;
  }

  /** Number of records held (expired ones included until swept). */
  get size(): number {
    return this.#records.size;
  }

  /**
   * Claim a key (synchronous check-and-set, so concurrent calls cannot both win).
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * await new MemoryWebhookDedupe().claim("evt_1", Date.now()); // true
   * ```
   */
  claim(key: string, now: number): Promise<boolean> {
    const record = this.#records.get(key);
    if (record !== undefined && record.expiresAt > now) return Promise.resolve(false);
    if (record !== undefined) this.#records.delete(key);
    if (this.#records.size >= this.#maxEntries) this.#sweep(now);
    this.#records.set(key, { state: "processing", expiresAt: now + this.#lease });
    return Promise.resolve(true);
  }

  /**
   * Mark a key processed for the window.
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * const dedupe = new MemoryWebhookDedupe();
   * await dedupe.claim("evt_1", Date.now());
   * await dedupe.complete("evt_1", Date.now());
   * ```
   */
  state(key: string, now: number): Promise<"processing" | "done" | null> {
    const record = this.#records.get(key);
    return Promise.resolve(record !== undefined && record.expiresAt > now ? record.state : null);
  }

  complete(key: string, now: number): Promise<void> {
    this.#records.delete(key);
    this.#records.set(key, { state: "done", expiresAt: now + this.#window });
    return Promise.resolve();
  }

  /**
   * Drop a claim.
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * await new MemoryWebhookDedupe().release("evt_1");
   * ```
   */
  release(key: string): Promise<void> {
    this.#records.delete(key);
    return Promise.resolve();
  }

  #sweep(now: number): void {
    for (const [key, record] of this.#records) {
      if (record.expiresAt <= now) this.#records.delete(key);
    }
    // Still full of live records: drop the oldest (Map keeps insertion order).
    for (const key of this.#records.keys()) {
      if (this.#records.size < this.#maxEntries) break;
      this.#records.delete(key);
    }
  }
}

/**
 * Claims in Deno KV, exact across processes and isolates (Deno Deploy): a claim is an atomic commit that
 * checks the versionstamp it read (`null` when the key is absent), so of concurrent deliveries exactly one
 * commits.
 *
 * @example
 * ```ts
 * import { KvWebhookDedupe } from "@gw/gateway/webhooks";
 * const kv = await Deno.openKv(":memory:");
 * const dedupe = new KvWebhookDedupe(kv, { window_seconds: 3600 });
 * await dedupe.claim("evt_1", Date.now()); // true
 * kv.close();
 * ```
 */
export class KvWebhookDedupe implements WebhookDedupe {
  readonly #kv: Deno.Kv;
  readonly #prefix: Deno.KvKey;
  readonly #window: number;
  readonly #lease: number;

  /**
   * Use `kv` under `prefix` (default `["gateway", "webhook_dedupe"]`).
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * new KvWebhookDedupe(kv, { prefix: ["app", "dedupe"] });
   * kv.close();
   * ```
   */
  constructor(kv: Deno.Kv, options: WebhookDedupeOptions & { prefix?: Deno.KvKey } = {}) {
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["gateway", "webhook_dedupe"];
    this.#window = seconds("window_seconds", options.window_seconds, 3600);
    this.#lease = seconds("lease_seconds", options.lease_seconds, 120);
  }

  /**
   * Claim a key with an atomic check on the versionstamp read.
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * await new KvWebhookDedupe(kv).claim("evt_1", Date.now()); // true
   * kv.close();
   * ```
   */
  async claim(key: string, now: number): Promise<boolean> {
    const kvKey = [...this.#prefix, key];
    // A lost race means someone else's record is now there: read again and decide on it.
    for (let round = 0; round < 12; round++) {
      const entry = await this.#kv.get<DedupeRecord>(kvKey);
      if (entry.value !== null && entry.value.expiresAt > now) return false;
      try {
        const result = await this.#kv.atomic()
          .check({ key: kvKey, versionstamp: entry.versionstamp })
          .set(kvKey, { state: "processing", expiresAt: now + this.#lease } satisfies DedupeRecord, {
            expireIn: this.#lease + 60_000,
          })
          .commit();
        if (result.ok) return true;
      } catch (error) {
        if (!isBusy(error)) throw error;
        await backoff(round);
      }
    }
    // Never answer "duplicate" without having seen the other record: let the server retry instead.
    throw new WebhookException("Cannot claim webhook delivery: the KV stayed busy");
  }

  /**
   * Mark a key processed for the window.
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * await new KvWebhookDedupe(kv).complete("evt_1", Date.now());
   * kv.close();
   * ```
   */
  async state(key: string, now: number): Promise<"processing" | "done" | null> {
    const record = (await this.#kv.get<DedupeRecord>([...this.#prefix, key])).value;
    return record !== null && record.expiresAt > now ? record.state : null;
  }

  async complete(key: string, now: number): Promise<void> {
    const record: DedupeRecord = { state: "done", expiresAt: now + this.#window };
    await retryBusy(() => this.#kv.set([...this.#prefix, key], record, { expireIn: this.#window + 60_000 }));
  }

  /**
   * Drop a claim.
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * await new KvWebhookDedupe(kv).release("evt_1");
   * kv.close();
   * ```
   */
  async release(key: string): Promise<void> {
    await retryBusy(() => this.#kv.delete([...this.#prefix, key]));
  }
}

// A local KV file shared by several processes (or handles) is one SQLite database: a writer that finds
// another one's transaction open gets "database is locked" and nothing was written, like a lost race.
function isBusy(error: unknown): boolean {
  return error instanceof Error && /database is locked|database is busy|SQLITE_BUSY/i.test(error.message);
}

// Random backoff of up to 1, 2, 4 … 32 ms, so that the retrying writers spread out.
function backoff(round: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(32, 2 ** round)));
}

async function retryBusy<T>(write: () => Promise<T>): Promise<T> {
  for (let round = 0;; round++) {
    try {
      return await write();
    } catch (error) {
      if (round >= 8 || !isBusy(error)) throw error;
      await backoff(round);
    }
  }
}
