/**
 * The messages and delivery schedules of the chaos cases, drawn from a seeded generator: one chat or many,
 * deliveries a few ms apart spread over the processes, and redeliveries (the same webhook again, to any
 * process, soon after and once everything is done).
 */

import type { ChaosMessage, Delivery } from "./chaos_deliveries.ts";

export interface PlanOptions {
  random: () => number;
  /** A tag that makes the message ids of this run unique. */
  tag: string;
  chats: number;
  perChat: number;
  processes: number;
  /** Ms between two first deliveries, at most (each gap is drawn from 1..gapMs). */
  gapMs: number;
  /** Share of deliveries posted a second time, a few ms later, to any process. */
  repeat: number;
  /** Flags of some messages: `{ kill: 2 }` puts `kill` on two of them, drawn at random. */
  flags?: Record<string, number>;
  /** Flags of chat c0's messages by their seq (placed before `flags`). */
  flagsAt?: Record<number, string>;
  /**
   * Key a chat's first message by the person's `@lid` with the phone as `remoteJidAlt` (the pair is learned
   * from it; it is delivered and answered before the others), then every other one by the `@lid` alone, as
   * 2.3.x servers send them, the rest by the phone.
   */
  lidForms?: boolean;
}

export function phoneOf(chat: number): string {
  return `551190000${String(1000 + chat)}`;
}

function envelope(id: string, chat: number, text: string, lid: "no" | "with phone" | "alone") {
  const phoneJid = `${phoneOf(chat)}@s.whatsapp.net`;
  const lidJid = `1234567890${String(10000 + chat)}@lid`;
  const key = lid === "no"
    ? { remoteJid: phoneJid }
    : lid === "with phone"
    ? { remoteJid: lidJid, remoteJidAlt: phoneJid, addressingMode: "lid" }
    : { remoteJid: lidJid, addressingMode: "lid" };
  return {
    event: "messages.upsert",
    instance: "sales",
    data: {
      key: { ...key, fromMe: false, id },
      pushName: "Ana",
      message: { conversation: text },
      messageType: "conversation",
      messageTimestamp: 1_760_000_000,
    },
  };
}

/** The messages, chats interleaved in a random order (each chat's own in sequence). */
export function planMessages(o: PlanOptions): ChaosMessage[] {
  const queues = Array.from(
    { length: o.chats },
    (_, chat) => Array.from({ length: o.perChat }, (_, seq) => ({ chat, seq })),
  );
  const messages: ChaosMessage[] = [];
  while (queues.some((q) => q.length > 0)) {
    const open = queues.filter((q) => q.length > 0);
    const { chat, seq } = open[Math.floor(o.random() * open.length)].shift()!;
    const id = `3EB0${o.tag}C${chat}S${seq}`;
    messages.push({ id, chat: `c${chat}`, seq, flags: [], body: {} });
    messages[messages.length - 1].body = envelope(id, chat, "", "no");
  }
  for (const [seq, flags] of Object.entries(o.flagsAt ?? {})) {
    messages.find((m) => m.chat === "c0" && m.seq === Number(seq))!.flags.push(...flags.split(" "));
  }
  for (const [flag, count] of Object.entries(o.flags ?? {})) {
    for (let placed = 0; placed < count;) {
      const m = messages[Math.floor(o.random() * messages.length)];
      if (m.flags.length > 0) continue;
      m.flags.push(...flag.split(" "));
      placed++;
    }
  }
  for (const m of messages) {
    const chat = Number(m.chat.slice(1));
    const lid = o.lidForms !== true ? "no" : m.seq === 0 ? "with phone" : m.seq % 2 === 1 ? "alone" : "no";
    m.body = envelope(m.id, chat, [m.chat, m.seq, ...m.flags].join(" "), lid);
  }
  return messages;
}

/** First deliveries spread over the processes, some repeated soon after, and a last pass of redeliveries. */
export function planDeliveries(messages: ChaosMessage[], o: PlanOptions): Delivery[] {
  const plan: Delivery[] = [];
  let at = 0;
  const anyProcess = () => Math.floor(o.random() * o.processes);
  for (const [i, message] of messages.entries()) {
    at += 1 + Math.floor(o.random() * o.gapMs);
    plan.push({ at, message, slot: i % o.processes });
    if (o.random() < o.repeat) {
      plan.push({ at: at + 1 + Math.floor(o.random() * 20), message, slot: anyProcess() });
    }
  }
  const end = at + 200;
  for (const message of messages) {
    if (o.random() < o.repeat) {
      plan.push({ at: end + Math.floor(o.random() * 20), message, slot: anyProcess() });
    }
  }
  return plan;
}
