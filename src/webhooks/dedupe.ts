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

import { checkOptionKeys } from "../option_keys.ts";
import { WebhookException } from "../errors.ts";
import { ExpiryQueue } from "../expiry_queue.ts";
import { withBusyRetry } from "../store/kv_busy.ts";
import { positiveNumber } from "../util/checks.ts";

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

/** The keys of {@link WebhookDedupeOptions}, for the unknown-key check. Internal. */
export const DEDUPE_OPTION_KEYS = { windowSeconds: true, leaseSeconds: true } as const satisfies Record<
  keyof WebhookDedupeOptions,
  true
>;

interface DedupeRecord {
  state: "processing" | "done";
  expiresAt: number;
}

/** A dedupe timing setting in seconds, checked, as ms (`fallback` seconds when not given). Internal. */
export function dedupeMilliseconds(name: string, value: number | undefined, fallback: number): number {
  return positiveNumber("Invalid webhook configuration", `dedupe.${name}`, value, fallback) * 1000;
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
  // One table per state: every record of a table has the same lifetime, so the order of insertion is the
  // order of expiry, and expired records are always at the front of the table's queue. Eviction pops from
  // the front: constant time per claim on average, however full the tables are.
  readonly #processing = new ExpiringTable();
  readonly #done = new ExpiringTable();
  readonly #window: number;
  readonly #lease: number;
  readonly #maxEntries: number;

  /**
   * Create an empty set of claims; at most `maxEntries` (default 100 000) are kept: expired ones are
   * dropped first, then the oldest processed ones.
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * new MemoryWebhookDedupe({ windowSeconds: 3600, maxEntries: 10_000 });
   * ```
   */
  constructor(options: WebhookDedupeOptions & { maxEntries?: number } = {}) {
    checkOptionKeys(options, { ...DEDUPE_OPTION_KEYS, maxEntries: true }, "new MemoryWebhookDedupe");
    this.#window = dedupeMilliseconds("windowSeconds", options.windowSeconds, 3600);
    this.#lease = dedupeMilliseconds("leaseSeconds", options.leaseSeconds, 120);
    this.#maxEntries = options.maxEntries ?? 100_000;
  }

  /** Number of records held (expired ones included until dropped). */
  get size(): number {
    return this.#processing.size + this.#done.size;
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
    if (this.#stateOf(key, now) !== null) return Promise.resolve(false);
    this.#done.delete(key);
    this.#evict(now);
    this.#processing.set(key, now + this.#lease);
    return Promise.resolve(true);
  }

  /**
   * Where a key stands: `processing`, `done`, or null when it is free.
   *
   * @example
   * ```ts
   * import { MemoryWebhookDedupe } from "@gw/gateway/webhooks";
   * const dedupe = new MemoryWebhookDedupe();
   * await dedupe.claim("evt_1", Date.now());
   * console.log(await dedupe.state("evt_1", Date.now())); // "processing"
   * ```
   */
  state(key: string, now: number): Promise<"processing" | "done" | null> {
    return Promise.resolve(this.#stateOf(key, now));
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
  complete(key: string, now: number): Promise<void> {
    this.#processing.delete(key);
    this.#done.delete(key);
    this.#evict(now);
    this.#done.set(key, now + this.#window);
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
    this.#processing.delete(key);
    return Promise.resolve();
  }

  #stateOf(key: string, now: number): "processing" | "done" | null {
    if (this.#done.isLive(key, now)) return "done";
    return this.#processing.isLive(key, now) ? "processing" : null;
  }

  /** Drop expired records, then the oldest processed ones while there is no room. */
  #evict(now: number): void {
    this.#processing.dropExpired(now);
    this.#done.dropExpired(now);
    while (this.size >= this.#maxEntries) {
      (this.#done.size > 0 ? this.#done : this.#processing).dropOldest();
    }
  }
}

/** Keys with expiry times, and the queue of their insertions; a queue item whose key was deleted or set again is stale. */
class ExpiringTable {
  readonly #expiries = new Map<string, number>();
  readonly #queue = new ExpiryQueue();

  get size(): number {
    return this.#expiries.size;
  }

  isLive(key: string, now: number): boolean {
    const expiresAt = this.#expiries.get(key);
    return expiresAt !== undefined && expiresAt > now;
  }

  set(key: string, expiresAt: number): void {
    this.#expiries.set(key, expiresAt);
    this.#queue.push(key, expiresAt);
  }

  delete(key: string): void {
    this.#expiries.delete(key);
  }

  /** Pop stale and expired items from the front. */
  dropExpired(now: number): void {
    while (this.#queue.length > 0) {
      const key = this.#queue.frontKey!;
      const time = this.#queue.frontTime;
      const current = this.#expiries.get(key);
      if (current === time && time > now) return;
      if (current === time) this.#expiries.delete(key);
      this.#queue.shift();
    }
  }

  /** Drop the oldest live record. */
  dropOldest(): void {
    while (this.#queue.length > 0) {
      const key = this.#queue.frontKey!;
      const live = this.#expiries.get(key) === this.#queue.frontTime;
      this.#queue.shift();
      if (live) {
        this.#expiries.delete(key);
        return;
      }
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
    checkOptionKeys(options, { ...DEDUPE_OPTION_KEYS, prefix: true }, "new KvWebhookDedupe");
    this.kv = kv;
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["gateway", "webhook_dedupe"];
    this.#window = dedupeMilliseconds("windowSeconds", options.windowSeconds, 3600);
    this.#lease = dedupeMilliseconds("leaseSeconds", options.leaseSeconds, 120);
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
