/**
 * `KvWebhookDedupe`: webhook redelivery claims in Deno KV (the {@link WebhookDedupe} contract of
 * `src/webhooks/dedupe.ts`).
 *
 * Each record stores its own expiry time: Deno KV's `expireIn` deletes lazily, so an expired record may
 * still be read and must not count.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { WebhookException } from "../../errors.ts";
import {
  DEDUPE_OPTION_KEYS,
  dedupeMilliseconds,
  type WebhookDedupe,
  type WebhookDedupeOptions,
} from "../../webhooks/dedupe.ts";
import { withBusyRetry } from "./busy.ts";

/** What a claim's key holds. */
interface DedupeRecord {
  state: "processing" | "done";
  expiresAt: number;
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

  /** Use `kv` under `prefix` (default `["gateway", "webhook_dedupe"]`). */
  constructor(kv: Deno.Kv, options: WebhookDedupeOptions & { prefix?: Deno.KvKey } = {}) {
    checkOptionKeys(options, { ...DEDUPE_OPTION_KEYS, prefix: true }, "new KvWebhookDedupe");
    this.kv = kv;
    this.#kv = kv;
    this.#prefix = options.prefix ?? ["gateway", "webhook_dedupe"];
    this.#window = dedupeMilliseconds("windowSeconds", options.windowSeconds, 3600);
    this.#lease = dedupeMilliseconds("leaseSeconds", options.leaseSeconds, 120);
  }

  /** Claim a key with an atomic check on the versionstamp read. */
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

  /** Where a key stands: `processing`, `done`, or null when it is free (an expired record counts as free). */
  async state(key: string, now: number): Promise<"processing" | "done" | null> {
    const record = (await this.#kv.get<DedupeRecord>([...this.#prefix, key])).value;
    return record !== null && record.expiresAt > now ? record.state : null;
  }

  /** Mark a key processed for the window. */
  async complete(key: string, now: number): Promise<void> {
    const record: DedupeRecord = { state: "done", expiresAt: now + this.#window };
    await withBusyRetry(() =>
      this.#kv.set([...this.#prefix, key], record, { expireIn: this.#window + 60_000 })
    );
  }

  /** Drop a claim. */
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
