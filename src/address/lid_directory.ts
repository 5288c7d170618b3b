import { MemoryState } from "../backends/memory/state.ts";
import type { StateStore } from "../store/state.ts";
import type { GatewayStore } from "../store/store.ts";
import { normalizePhone } from "./phone.ts";
import { type ResolvedSender, resolveSender } from "./sender.ts";
import { isRecord } from "../util/json_shape.ts";

/** State namespaces of the directory: LID user → phone, and phone → LID user. */
const BY_LID = "lid_phone";
const BY_PHONE = "phone_lid";

/** One LID ↔ phone pair. */
export interface LidPair {
  /** The LID JID (`123456789012345@lid`). */
  lid: string;
  /** The phone digits (`5511999999999`). */
  phone: string;
}

interface Stored {
  value: string;
  learnedAt: number;
}

type Json = Record<string, unknown>;

const PN = /^(\d+)(?::\d+)?@(?:s\.whatsapp\.net|c\.us)$/;
const LID = /^(\d+)(?::\d+)?@lid$/;

// Fields of contact and chat rows that name the same person (Baileys' Contact has id, lid, phoneNumber).
const ROW_FIELDS = [
  "id",
  "remoteJid",
  "remoteJidAlt",
  "jid",
  "lid",
  "phoneNumber",
  "pn",
  "senderPn",
  "senderLid",
];

function rowPair(row: Json): LidPair | null {
  let phone: string | undefined;
  let lid: string | undefined;
  for (const field of ROW_FIELDS) {
    const value = row[field];
    if (typeof value !== "string") continue;
    phone ??= PN.exec(value)?.[1];
    const lidUser = LID.exec(value)?.[1];
    if (lidUser !== undefined) lid ??= `${lidUser}@lid`;
  }
  return phone !== undefined && lid !== undefined ? { lid, phone } : null;
}

/** Every LID ↔ phone pair an event shows: its messages, contact rows and chat rows. */
export function lidPairsOf(payload: unknown): LidPair[] {
  const out = new Map<string, LidPair>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 3) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    if (isRecord(value.key)) {
      const sender = resolveSender(value);
      if (sender?.lid !== undefined && sender.phone !== undefined) {
        out.set(sender.lid, { lid: sender.lid, phone: sender.phone });
      }
      return;
    }
    const pair = rowPair(value);
    if (pair !== null) out.set(pair.lid, pair);
    // History sync (`messaging-history.set`) carries lists of messages, contacts and chats.
    for (const list of ["messages", "contacts", "chats"]) {
      if (Array.isArray(value[list])) visit(value[list], depth + 1);
    }
  };
  visit(isRecord(payload) && "data" in payload ? payload.data : payload, 0);
  return [...out.values()];
}

function stateOf(store: GatewayStore | StateStore | undefined): StateStore {
  if (store === undefined) return new MemoryState();
  return "state" in store && typeof store.state === "object" ? store.state : store as StateStore;
}

function lidUser(lid: string): string {
  const match = LID.exec(lid.trim()) ?? /^(\d+)$/.exec(lid.trim());
  if (match === null) throw new TypeError(`Cannot look up LID ${JSON.stringify(lid)}: not a LID JID`);
  return match[1];
}

function phoneDigits(phone: string): string {
  return PN.exec(phone.trim())?.[1] ?? normalizePhone(phone);
}

/**
 * LID ↔ phone pairs learned from webhooks, on a store's shared state: what one process learns, every process
 * on the same store answers. A `WebhookProcessor` with a store feeds it (`processor.lidDirectory`).
 *
 * @example
 * ```ts
 * import { MemoryStore, WebhookPayloadDto } from "@gw/gateway";
 * import { LidDirectory } from "@gw/gateway/delivery";
 * const directory = new LidDirectory(new MemoryStore());
 * await directory.learn(WebhookPayloadDto.from({
 *   event: "messages.upsert",
 *   data: { key: { remoteJid: "123456789012345@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", id: "A" } },
 * })!);
 * await directory.toPhone("123456789012345@lid"); // "5511999999999"
 * await directory.toLid("+55 11 99999-9999"); // "123456789012345@lid"
 * ```
 */
export class LidDirectory {
  readonly #state: StateStore;
  readonly #now: () => number;

  /** Use a store (its `state`) or a `StateStore`; without one, an in-memory state of this object only. */
  constructor(store?: GatewayStore | StateStore, options: { now?: () => number } = {}) {
    this.#state = stateOf(store);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Learn every pair `payload` shows (a webhook payload, its envelope, or its `data`); returns how many
   * pairs were new or changed. Pairs already known cost one read each and no write.
   */
  async learn(payload: unknown): Promise<number> {
    let learned = 0;
    for (const pair of lidPairsOf(payload)) {
      if (await this.remember(pair)) learned++;
    }
    return learned;
  }

  /** Record one pair; true when it was new or changed. */
  async remember(pair: LidPair): Promise<boolean> {
    const user = lidUser(pair.lid);
    const phone = phoneDigits(pair.phone);
    const known = await this.#state.get<Stored>(BY_LID, user);
    const reverse = await this.#state.get<Stored>(BY_PHONE, phone);
    if (known?.value.value === phone && reverse?.value.value === user) return false;
    const learnedAt = this.#now();
    await this.#state.set<Stored>(BY_LID, user, { value: phone, learnedAt });
    await this.#state.set<Stored>(BY_PHONE, phone, { value: user, learnedAt });
    return true;
  }

  /** The phone digits of a LID (`"123@lid"` or its digits), or undefined when no event showed them. */
  async toPhone(lid: string): Promise<string | undefined> {
    return (await this.#state.get<Stored>(BY_LID, lidUser(lid)))?.value.value;
  }

  /** The LID JID of a phone number (digits, any formatting, or a phone-number JID), or undefined. */
  async toLid(phone: string): Promise<string | undefined> {
    const user = (await this.#state.get<Stored>(BY_PHONE, phoneDigits(phone)))?.value.value;
    return user === undefined ? undefined : `${user}@lid`;
  }

  /** {@link resolveSender}, with the phone (or LID) the payload lacks filled in; `replyTo` stays as sent. */
  async resolve(payload: unknown): Promise<ResolvedSender | null> {
    const sender = resolveSender(payload);
    if (sender === null) return null;
    if (sender.lid !== undefined && sender.phone === undefined) {
      const phone = await this.toPhone(sender.lid);
      if (phone !== undefined) sender.phone = phone;
    } else if (sender.phone !== undefined && sender.lid === undefined) {
      const lid = await this.toLid(sender.phone);
      if (lid !== undefined) sender.lid = lid;
    }
    return sender;
  }
}
