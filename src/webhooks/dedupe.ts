/**
 * Redelivery detection. The server retries a webhook up to 10 times, and retries can race each other, so a
 * delivery is processed only after an atomic claim on its key (the `webhook-id`, or a digest of the raw
 * body). A claim is first a short lease (processing), then a record for the window (processed); a failed
 * processing gives the claim back so that the next retry runs.
 *
 * This file is the contract ({@link WebhookDedupe}) and the timing settings every engine shares; the
 * engines live by backend: `MemoryWebhookDedupe` (`src/backends/memory/dedupe.ts`), `KvWebhookDedupe`
 * (`src/backends/kv/dedupe.ts`), `RedisWebhookDedupe` and `CoordinatorWebhookDedupe`.
 *
 * @module
 */

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

/** A dedupe timing setting in seconds, checked, as ms (`fallback` seconds when not given). Internal. */
export function dedupeMilliseconds(name: string, value: number | undefined, fallback: number): number {
  return positiveNumber("Invalid webhook configuration", `dedupe.${name}`, value, fallback) * 1000;
}
