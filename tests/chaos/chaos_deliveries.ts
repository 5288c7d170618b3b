/**
 * The gateway server's side of a chaos run: signed webhooks (JWT, as the reference server signs them) posted
 * to the bot processes on a schedule a few ms apart, and retried elsewhere after a 5xx or a dropped
 * connection, as the server retries a failed delivery.
 */

import { signWebhook } from "../../src/testing/mod.ts";
import type { Cluster } from "./chaos_cluster.ts";

/** One inbound message of a run. */
export interface ChaosMessage {
  id: string;
  chat: string;
  seq: number;
  flags: string[];
  /** The webhook's envelope. */
  body: Record<string, unknown>;
}

/** One planned delivery: `message` posted to the worker in `slot`, `at` ms after the run starts. */
export interface Delivery {
  at: number;
  message: ChaosMessage;
  slot: number;
}

/** What became of one delivery and its retries. */
export interface Outcome {
  id: string;
  answers: string[];
  accepted: boolean;
}

export interface DeliveryOptions {
  random: () => number;
  /** Attempts per delivery, the first included (the server gives up after these). */
  attempts: number;
  /** Ms before the first retry; each next one waits twice as long, up to 16 times this (the server's backoff, scaled down). */
  retryMs: number;
}

/** A seeded generator in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Deliveries {
  readonly outcomes: Outcome[] = [];
  #count = 0;
  readonly #stopped = new AbortController();

  constructor(readonly cluster: Cluster, readonly secret: string, readonly options: DeliveryOptions) {}

  /** Stop at once: no more posts, no retry, no timer left (a stuck run's leftovers). */
  stop(): void {
    this.#stopped.abort();
  }

  #wait(ms: number): Promise<void> {
    const signal = this.#stopped.signal;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
    });
  }

  /** Post every delivery at its time (not waiting for the answers), then wait for all answers. */
  async run(plan: Delivery[]): Promise<void> {
    const started = Date.now();
    const pending: Promise<Outcome>[] = [];
    for (const delivery of [...plan].sort((a, b) => a.at - b.at)) {
      const due = started + delivery.at - Date.now();
      if (due > 0) await this.#wait(due);
      if (this.#stopped.signal.aborted) break;
      pending.push(this.deliver(delivery.message, delivery.slot));
    }
    await Promise.all(pending);
  }

  /** One delivery: posted to `slot`, retried on another worker while the answer is not a 2xx. */
  async deliver(message: ChaosMessage, slot: number): Promise<Outcome> {
    const outcome: Outcome = { id: message.id, answers: [], accepted: false };
    this.outcomes.push(outcome);
    for (let attempt = 0; attempt < this.options.attempts; attempt++) {
      if (attempt > 0) {
        await this.#wait(this.options.retryMs * 2 ** Math.min(attempt - 1, 4));
        if (this.#stopped.signal.aborted) break;
        const live = this.cluster.live();
        slot = live[Math.floor(this.options.random() * live.length)] ?? slot;
      }
      const sent = Date.now();
      const answer = await this.#post(message, slot);
      outcome.answers.push(`${this.cluster.name(slot)}: ${answer} after ${Date.now() - sent} ms`);
      if (answer.startsWith("2")) {
        outcome.accepted = true;
        break;
      }
    }
    return outcome;
  }

  async #post(message: ChaosMessage, slot: number): Promise<string> {
    const body = JSON.stringify(message.body);
    const headers = await signWebhook({
      scheme: "jwt",
      secret: this.secret,
      body,
      timestamp: Math.floor(this.cluster.now() / 1000),
    });
    try {
      const response = await fetch(this.cluster.url(slot), {
        method: "POST",
        headers: { ...headers, "x-chaos-id": message.id, "x-chaos-delivery": String(++this.#count) },
        body,
      });
      const text = await response.text();
      return `${response.status} ${text.slice(0, 160)}`;
    } catch (error) {
      return `dropped (${error instanceof Error ? error.message.slice(0, 80) : String(error)})`;
    }
  }
}
