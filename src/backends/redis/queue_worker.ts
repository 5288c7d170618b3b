/**
 * The Redis queue's worker loop: run the next due job, or wait a poll interval cut short by `stop()`.
 *
 * @module
 */

import { getGatewayLogger } from "../../log.ts";
import type { WebhookJobOutcome, WebhookWorker } from "../../webhooks/queue/interface.ts";

/** A running Redis worker: {@link WebhookWorker} plus `stop()`. */
export interface RedisWebhookWorker extends WebhookWorker {
  /** Stop taking jobs; resolves when the job in hand (if any) is settled. */
  stop(): Promise<void>;
}

const logger = getGatewayLogger("webhook", "queue");

/**
 * Run `runNext` in a loop, one job at a time, until `stop()`; `runNext` answers null when no job is due,
 * and the loop then waits `pollMs`. `onStopped` runs once the loop has ended after `stop()`.
 */
export function pollingWorker(
  runNext: () => Promise<WebhookJobOutcome | null>,
  pollMs: number,
  onStopped: () => void,
): RedisWebhookWorker {
  let stopping = false;
  let running = false;
  let wake: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waiters: (() => void)[] = [];
  const loop = async () => {
    while (!stopping) {
      let outcome: WebhookJobOutcome | null = null;
      running = true;
      try {
        outcome = await runNext();
      } catch (error) {
        logger.error("Webhook worker cannot take a job from Redis: {error}", { error: String(error) });
      } finally {
        running = false;
        const done = waiters;
        waiters = [];
        done.forEach((resolve) => resolve());
      }
      if (outcome === null && !stopping) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, pollMs);
        });
        wake = undefined;
      }
    }
  };
  const finished = loop();
  return {
    finished,
    idle: () => running ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve(),
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      wake?.();
      await finished;
      onStopped();
    },
  };
}
