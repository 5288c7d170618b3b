/**
 * `RedisWebhookDedupe`: webhook redelivery claims on Redis, exact across receivers sharing the server.
 *
 * @module
 */

import { checkOptionKeys } from "../../option_keys.ts";
import { dedupeMilliseconds, type WebhookDedupe, type WebhookDedupeOptions } from "../../webhooks/dedupe.ts";
import { REDIS_BACKEND_OPTION_KEYS, type RedisBackendOptions, RedisConnection } from "./connection.ts";
import { SET_UNLESS_LIVE } from "./script.ts";

/** Options of {@link RedisWebhookDedupe}: the connection, the key prefix, and the claim timing. */
export type RedisWebhookDedupeOptions = RedisBackendOptions & WebhookDedupeOptions;

// Redis drops a record this long after its own expiry time: covers clocks a little apart.
const SLACK_MS = 60_000;

/**
 * Delivery claims in Redis: of concurrent deliveries with one key, on any number of receivers, exactly one
 * claims it (one Lua script: `SET … PX` unless a live record is there). A claim is a lease of
 * `leaseSeconds` while the delivery is processed, then a record for `windowSeconds`; a failed delivery
 * releases it so that the server's retry runs. Records expire in Redis by themselves.
 *
 * @example Two app servers that never process one webhook twice
 * ```ts
 * import { createWebhookHandler } from "@gw/gateway";
 * import { RedisWebhookDedupe } from "@gw/gateway/redis";
 * const dedupe = new RedisWebhookDedupe({ url: "redis://127.0.0.1:6379", windowSeconds: 3600 });
 * const handler = createWebhookHandler({ signature: { secret: "s3cret" }, dedupe });
 * ```
 */
export class RedisWebhookDedupe implements WebhookDedupe {
  readonly #redis: RedisConnection;
  readonly #window: number;
  readonly #lease: number;

  /** Connect with `{ url }` (opened on first use) or use `{ client }` (yours). */
  constructor(options: RedisWebhookDedupeOptions) {
    checkOptionKeys(
      options,
      { ...REDIS_BACKEND_OPTION_KEYS, windowSeconds: true, leaseSeconds: true },
      "new RedisWebhookDedupe",
    );
    this.#window = dedupeMilliseconds("windowSeconds", options.windowSeconds, 3600);
    this.#lease = dedupeMilliseconds("leaseSeconds", options.leaseSeconds, 120);
    this.#redis = new RedisConnection("RedisWebhookDedupe", options);
  }

  #key(key: string): string {
    return `${this.#redis.prefix}webhook_dedupe:${key}`;
  }

  /** Claim `key`: true when this delivery should be processed. */
  async claim(key: string, now: number): Promise<boolean> {
    const expiresAt = now + this.#lease;
    const claimed = await SET_UNLESS_LIVE.run<number>(this.#redis, [this.#key(key)], [
      String(now),
      `processing:${expiresAt}`,
      String(this.#lease + SLACK_MS),
    ]);
    return claimed === 1;
  }

  /** Where a refused key stands: `processing`, `done`, or null when no live record holds it. */
  async state(key: string, now: number): Promise<"processing" | "done" | null> {
    const held = await this.#redis.command<string | null>(["GET", this.#key(key)]);
    const match = held === null ? null : /^(processing|done):(.+)$/.exec(held);
    if (match === null || !(Number(match[2]) > now)) return null;
    return match[1] as "processing" | "done";
  }

  /** The delivery was processed (or queued): refuse duplicates until `now` + `windowSeconds`. */
  async complete(key: string, now: number): Promise<void> {
    await this.#redis.command([
      "SET",
      this.#key(key),
      `done:${now + this.#window}`,
      "PX",
      String(this.#window + SLACK_MS),
    ]);
  }

  /** Processing failed: drop the claim so that the next delivery is processed. */
  async release(key: string): Promise<void> {
    await this.#redis.command(["DEL", this.#key(key)]);
  }

  /** Close the connection opened from `url` (a given `client` stays open). */
  close(): Promise<void> {
    return this.#redis.close();
  }
}
