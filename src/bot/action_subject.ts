/**
 * What an action acts on: the chat and the message of the context it is called on. A dialogue's earlier
 * context is a view over the live one with its own update, so its actions read these fields from the view:
 * `ctx1.react()` reacts to `ctx1.msg`, whatever update is being handled now. Internal.
 *
 * @module
 */

import type { QuotedInput } from "../dto/message_options.ts";
import type { MessageRef } from "../resources/types.ts";
import type { BotChat, BotMessage } from "./update_types.ts";

/** The fields of a context an action reads. */
export interface ActionSubject {
  /** The chat. */
  readonly chat: BotChat | undefined;
  /** The message. */
  readonly msg: BotMessage | undefined;
  /** Every message of a debounced burst. */
  readonly messages: readonly BotMessage[];
  /** The payload: the message's address as WhatsApp gave it (`remoteJid`, `participant`) and the event. */
  readonly payload: { readonly remoteJid?: string; readonly participant?: string; readonly rawEvent: string };
}

/** The chat an action goes to; throws a clear `TypeError` for an update without one. */
export function chatOf(ctx: ActionSubject, action: string): string {
  const chat = ctx.chat?.id;
  if (chat === undefined) {
    throw new TypeError(`Cannot ${action}: this update (${ctx.payload.rawEvent}) has no chat`);
  }
  return chat;
}

/** The key of the context's message, as WhatsApp addresses it; throws for an update without a message. */
export function messageRefOf(ctx: ActionSubject, action: string): MessageRef {
  const msg = ctx.msg;
  if (msg === undefined || msg.id === "") {
    throw new TypeError(`Cannot ${action}: this update (${ctx.payload.rawEvent}) has no message`);
  }
  const ref: MessageRef = {
    remoteJid: ctx.payload.remoteJid ?? chatOf(ctx, action),
    id: msg.id,
    fromMe: msg.fromMe,
  };
  const participant = ctx.payload.participant;
  return participant === undefined ? ref : { ...ref, participant };
}

/** The context's message as a quote, or undefined when it has none. */
export function quotedOf(ctx: ActionSubject): QuotedInput | undefined {
  const msg = ctx.msg;
  if (msg === undefined || msg.id === "") return undefined;
  const key = messageRefOf(ctx, "quote");
  return { key, message: msg.text === undefined ? undefined : { conversation: msg.text } };
}

/** The keys of the messages to mark as read: every message of a burst (or the message alone). */
export function readRefsOf(ctx: ActionSubject): MessageRef[] {
  const first = messageRefOf(ctx, "mark as read");
  return ctx.messages.length > 0 ? ctx.messages.map((msg) => ({ ...first, id: msg.id })) : [first];
}
