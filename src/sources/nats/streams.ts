import { ConfigurationException } from "../../errors.ts";
import type { NatsJetStreamManager } from "./client.ts";

/**
 * The work-queue stream keeping an instance's events until acked: `GW_<instance>` (the server publishes with
 * core NATS, at most once).
 */
export function eventStream(instance: string): string {
  return `GW_${instance}`;
}

/** The stream that keeps an instance's dead letters: `GW_<instance>_DEAD`. */
export function deadLetterStream(instance: string): string {
  return `GW_${instance}_DEAD`;
}

/** Where a dead letter is published: `gw-dead-letters.<instance>`. */
export function deadLetterSubject(instance: string): string {
  return `gw-dead-letters.${instance}`;
}

/** The subject the server publishes an event on (nats.controller.ts: `<instance>.<event lower case>`). */
export function eventSubject(instance: string, event: string): string {
  return `${instance}.${event.toLowerCase()}`;
}

/** Create a stream, or check an existing one and add the subjects it lacks. */
async function ensureStream(
  jsm: NatsJetStreamManager,
  name: string,
  subjects: string[],
  retention: "workqueue" | "limits",
): Promise<void> {
  let existing: { config: { subjects?: string[]; retention?: unknown } } | undefined;
  try {
    existing = await jsm.streams.info(name);
  } catch (error) {
    if (!/not found/i.test(String((error as Error)?.message))) throw error;
  }
  if (existing === undefined) {
    await jsm.streams.add({ name, subjects, retention, storage: "file" });
    return;
  }
  if (existing.config.retention !== retention) {
    throw new ConfigurationException(
      `Cannot use NATS stream "${name}": its retention is "${existing.config.retention}", not "${retention}"`,
      { setting: "stream" },
    );
  }
  const have = existing.config.subjects ?? [];
  const missing = subjects.filter((subject) => !have.includes(subject));
  if (missing.length > 0) {
    await jsm.streams.update(name, { ...existing.config, subjects: [...have, ...missing] });
  }
}

/** The streams of every instance (idempotent). */
export async function ensureStreams(jsm: NatsJetStreamManager, instances: string[]): Promise<void> {
  for (const instance of instances) {
    await ensureStream(jsm, eventStream(instance), [`${instance}.>`], "workqueue");
    await ensureStream(jsm, deadLetterStream(instance), [deadLetterSubject(instance)], "limits");
  }
}

/** The durable pull consumer `name` of an instance's stream, created when missing. */
export async function ensureConsumer(
  jsm: NatsJetStreamManager,
  instance: string,
  name: string,
  ackWaitMs: number,
): Promise<void> {
  try {
    await jsm.consumers.info(eventStream(instance), name);
    return;
  } catch (error) {
    if (!/not found/i.test(String((error as Error)?.message))) throw error;
  }
  await jsm.consumers.add(eventStream(instance), {
    durable_name: name,
    ack_policy: "explicit",
    deliver_policy: "all",
    ack_wait: ackWaitMs * 1_000_000, // nanoseconds
    max_deliver: -1, // the consumer dead-letters by itself after maxAttempts
  });
}
