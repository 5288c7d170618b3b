import type { NatsLink, NatsStoredMsg } from "./client.ts";
import { deadLetterStream } from "./streams.ts";

/** One event a consumer gave up on, kept in the stream `GW_<instance>_DEAD`. */
export interface NatsDeadLetter {
  /** Its id, `<instance>:<sequence>` (give it to `requeueDeadLetter`). */
  id: string;
  /** The instance whose stream it came from. */
  instance: string;
  /** The subject the server published it on (`sales.messages.upsert`). */
  subject: string;
  /** Why it was given up: the last handler error, or why the body is not an event. */
  reason: string;
  /** How many times it was delivered. */
  attempts: number;
  /** When it was dead-lettered (epoch ms). */
  deadAt: number;
  /** The body as published (parsed JSON, or the text when it is not JSON). */
  body: unknown;
}

function read(instance: string, message: NatsStoredMsg): NatsDeadLetter {
  const text = message.string();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text: a body that is not JSON is one reason to be here
  }
  return {
    id: `${instance}:${message.seq}`,
    instance,
    subject: message.header.get("Gw-Subject"),
    reason: message.header.get("Gw-Reason"),
    attempts: Number(message.header.get("Gw-Attempts")),
    deadAt: Number(message.header.get("Gw-Dead-At")),
    body,
  };
}

async function stored(link: NatsLink, stream: string, seq: number): Promise<NatsStoredMsg | null> {
  try {
    return await link.jsm.streams.getMessage(stream, { seq });
  } catch {
    return null; // deleted (requeued)
  }
}

/** Up to `limit` dead letters of `instance`, oldest first. */
export async function listDeadLetters(
  link: NatsLink,
  instance: string,
  limit: number,
): Promise<NatsDeadLetter[]> {
  const stream = deadLetterStream(instance);
  const { state } = await link.jsm.streams.info(stream);
  const found: NatsDeadLetter[] = [];
  for (
    let seq = state.first_seq;
    seq <= state.last_seq && found.length < limit && state.messages > 0;
    seq++
  ) {
    const message = await stored(link, stream, seq);
    if (message !== null) found.push(read(instance, message));
  }
  return found;
}

/** Publish dead letter `id` again on its subject and delete it: true when found. */
export async function requeueDeadLetter(link: NatsLink, instances: string[], id: string): Promise<boolean> {
  const at = id.lastIndexOf(":");
  const instance = id.slice(0, at);
  const seq = Number(id.slice(at + 1));
  if (!instances.includes(instance) || !Number.isSafeInteger(seq) || seq < 1) return false;
  const stream = deadLetterStream(instance);
  const message = await stored(link, stream, seq);
  if (message === null) return false;
  const subject = message.header.get("Gw-Subject");
  if (!subject.startsWith(`${instance}.`)) return false;
  await link.js.publish(subject, message.data);
  await link.jsm.streams.deleteMessage(stream, seq);
  return true;
}
