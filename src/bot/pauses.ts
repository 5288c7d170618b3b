import { ValidationException } from "../errors.ts";
import type { StateStore } from "../store/state.ts";

const NAMESPACE = "bot_paused";

/** A chat id as given (`5511999999999`, `+55 11 99999-9999` or a JID) as the JID the bot's contexts use. */
export function chatKey(chatId: string): string {
  if (typeof chatId !== "string" || chatId.trim() === "") {
    throw new ValidationException("Cannot pause chat: the chat id is empty", {
      messages: ["chatId is empty"],
    });
  }
  const trimmed = chatId.trim();
  if (trimmed.includes("@")) return trimmed;
  const digits = trimmed.replace(/[\s()+-]/g, "");
  if (!/^\d{6,20}$/.test(digits)) {
    throw new ValidationException(`Cannot pause chat "${trimmed}": expected a JID or a phone number`, {
      messages: ["chatId is not a JID or a phone number"],
    });
  }
  return `${digits}@s.whatsapp.net`;
}

function isEntry(entry: unknown): boolean {
  return entry !== null;
}

/** The paused chats of a bot. */
export class ChatPauses {
  readonly #state: StateStore;
  readonly #now: () => number;

  constructor(state: StateStore, now: () => number) {
    this.#state = state;
    this.#now = now;
  }

  /** Pause `chatId` (until `untilMs`, epoch ms, or until resumed). */
  async pause(chatId: string, untilMs?: number): Promise<void> {
    const key = chatKey(chatId);
    await this.#state.set(NAMESPACE, key, { at: this.#now() }, { expiresAt: untilMs });
  }

  /** Resume `chatId`; true when it was paused. */
  async resume(chatId: string): Promise<boolean> {
    return await this.#state.delete(NAMESPACE, chatKey(chatId));
  }

  /** Whether `chatId` is paused. */
  isPaused(chatId: string): Promise<boolean> {
    // Not `async` (the pause stage asks for every update): the read's own promise, mapped.
    let key: string;
    try {
      key = chatKey(chatId);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#state.get(NAMESPACE, key).then(isEntry);
  }
}
