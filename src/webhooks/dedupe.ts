// Retries race each other, so a delivery runs only after an atomic claim on its key; the engines live in
// src/backends/.

import { positiveNumber } from "../util/checks.ts";

/** Atomic claims on delivery keys. Implement it to keep claims elsewhere (Redis, a database). */
export interface WebhookDedupe {
  /** Claim `key` atomically: false when another delivery holds it or it was processed within the window. */
  claim(key: string, now: number): Promise<boolean>;
  /** The claimed delivery was processed (or queued): refuse duplicates until `now` + window. */
  complete(key: string, now: number): Promise<void>;
  /** Processing failed: drop the claim so that the next delivery is processed. */
  release(key: string): Promise<void>;
  /** Where a refused key stands; without this method every refusal counts as `done`. */
  state?(key: string, now: number): Promise<"processing" | "done" | null>;
}

/** Timing of dedupe records. */
export interface WebhookDedupeOptions {
  /** How long a processed delivery is remembered, in seconds (default 3600). */
  windowSeconds?: number;
  /** How long a claim in progress holds before another may take it, in seconds (default 120). */
  leaseSeconds?: number;
}

export const DEDUPE_OPTION_KEYS = { windowSeconds: true, leaseSeconds: true } as const satisfies Record<
  keyof WebhookDedupeOptions,
  true
>;

/** A dedupe timing setting in seconds, checked, as ms (`fallback` seconds when not given). Internal. */
export function dedupeMilliseconds(name: string, value: number | undefined, fallback: number): number {
  return positiveNumber("Invalid webhook configuration", `dedupe.${name}`, value, fallback) * 1000;
}
