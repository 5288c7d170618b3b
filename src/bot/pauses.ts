import { ValidationException } from "../errors.ts";
import { MemoryState } from "../backends/memory/state.ts";
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
  async isPaused(chatId: string): Promise<boolean> {
    return (await this.#state.get(NAMESPACE, chatKey(chatId))) !== null;
  }

  /**
   * Whether the chat of an update is paused, read from the store as {@link ChatPauses.isPaused} does: at
   * once on a `MemoryState` (its synchronous read), else a promise.
   */
  pausedNow(chatId: string): boolean | Promise<boolean> {
    const key = chatKey(chatId);
    const state = this.#state;
    if (state instanceof MemoryState) return state.getNow(NAMESPACE, key) !== null;
    return state.get(NAMESPACE, key).then((entry) => entry !== null);
  }
}
