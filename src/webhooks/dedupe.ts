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

import { ConfigurationException, WebhookException } from "../errors.ts";
import { withBusyRetry } from "../store/kv_busy.ts";

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
  windowSeconds?: number;
  /** How long a claim in progress holds before another delivery may take it over, in seconds (default 120). */
  leaseSeconds?: number;
}

interface DedupeRecord {
  state: "processing" | "done";
  expiresAt: number;
}

function seconds(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationException(
      `Invalid webhook configuration: "dedupe.${name}" must be a number > 0, got "${String(value)}"`,
      { setting: `dedupe.${name}` },
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
 * const dedupe = new MemoryWebhookDedupe({ windowSeconds: 600 });
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
   * Create an empty set of claims; at most `maxEntries` (default 100 000) are kept, oldest dropped first.
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * new MemoryWebhookDedupe({ windowSeconds: 3600, maxEntries: 10_000 });
   * ```
   */
  constructor(options: WebhookDedupeOptions & { maxEntries?: number } = {}) {
    this.#window = seconds("windowSeconds", options.windowSeconds, 3600);
    this.#lease = seconds("leaseSeconds", options.leaseSeconds, 120);
    this.#maxEntries = options.maxEntries ?? 100_000;
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
 * const dedupe = new KvWebhookDedupe(kv, { windowSeconds: 3600 });
 * await dedupe.claim("evt_1", Date.now()); // true
 * kv.close();
 * ```
 */
export class KvWebhookDedupe implements WebhookDedupe {
  /** The KV the claims live in. */
  readonly kv: Deno.Kv;
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
    this.kv = kv;
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["gateway", "webhook_dedupe"];
    this.#window = seconds("windowSeconds", options.windowSeconds, 3600);
    this.#lease = seconds("leaseSeconds", options.leaseSeconds, 120);
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
      const outcome = await withBusyRetry(async () => {
        const entry = await this.#kv.get<DedupeRecord>(kvKey);
        if (entry.value !== null && entry.value.expiresAt > now) return false;
        const result = await this.#kv.atomic()
          .check({ key: kvKey, versionstamp: entry.versionstamp })
          .set(kvKey, { state: "processing", expiresAt: now + this.#lease } satisfies DedupeRecord, {
            expireIn: this.#lease + 60_000,
          })
          .commit();
        return result.ok ? true : undefined;
      });
      if (outcome !== undefined) return outcome;
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
    await withBusyRetry(() =>
      this.#kv.set([...this.#prefix, key], record, { expireIn: this.#window + 60_000 })
    );
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
    await withBusyRetry(() => this.#kv.delete([...this.#prefix, key]));
  }

  /**
   * Add the claim of `key` to `op`, recorded as done for the window: it commits only with `op`, and only
   * if no live record holds the key by then (the operation checks the versionstamp read here). False, with
   * nothing added, when a live record already holds it. Queue mode commits the claim with the job this way.
   *
   * @example
   * ```ts
   * import { KvWebhookDedupe } from "@gw/gateway/webhooks";
   * const kv = await Deno.openKv(":memory:");
   * const dedupe = new KvWebhookDedupe(kv);
   * const op = kv.atomic();
   * if (await dedupe.claimWithin(op, "evt_1", Date.now())) await op.set(["app", "seen", "evt_1"], true).commit();
   * kv.close();
   * ```
   */
  async claimWithin(op: Deno.AtomicOperation, key: string, now: number): Promise<boolean> {
    const kvKey = [...this.#prefix, key];
    const entry = await this.#kv.get<DedupeRecord>(kvKey);
    if (entry.value !== null && entry.value.expiresAt > now) return false;
    op.check({ key: kvKey, versionstamp: entry.versionstamp })
      .set(kvKey, { state: "done", expiresAt: now + this.#window } satisfies DedupeRecord, {
        expireIn: this.#window + 60_000,
      });
    return true;
  }
}
