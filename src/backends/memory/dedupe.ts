/**
 * `MemoryWebhookDedupe`: webhook redelivery claims in this isolate's memory.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import {
  DEDUPE_OPTION_KEYS,
  dedupeMilliseconds,
  type WebhookDedupe,
  type WebhookDedupeOptions,
} from "../../webhooks/dedupe.ts";
import { ExpiryQueue } from "./expiry_queue.ts";

/**
 * Claims kept in this isolate's memory: exact within one process (a claim is a synchronous check-and-set),
 * bounded in size. Use `KvWebhookDedupe` (or Redis, or the Cloudflare coordinator) when several processes
 * receive webhooks.
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

  /** Keep at most `maxEntries` claims (default 100 000), dropping expired, then oldest processed ones. */
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

  /** Claim a key (synchronous check-and-set, so concurrent calls cannot both win). */
  claim(key: string, now: number): Promise<boolean> {
    if (this.#stateOf(key, now) !== null) return Promise.resolve(false);
    this.#done.delete(key);
    this.#evict(now);
    this.#processing.set(key, now + this.#lease);
    return Promise.resolve(true);
  }

  /** Where a key stands: `processing`, `done`, or null when it is free. */
  state(key: string, now: number): Promise<"processing" | "done" | null> {
    return Promise.resolve(this.#stateOf(key, now));
  }

  /** Mark a key processed for the window. */
  complete(key: string, now: number): Promise<void> {
    this.#processing.delete(key);
    this.#done.delete(key);
    this.#evict(now);
    this.#done.set(key, now + this.#window);
    return Promise.resolve();
  }

  /** Drop a claim. */
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
