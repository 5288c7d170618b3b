/**
 * The one path of a context's actions: target, key and guarded send. A dialogue's earlier context is a view
 * with its own update: its actions read the view's fields (`ctx1.react()` reacts to `ctx1.msg`) and take
 * their keys from the live run.
 *
 * @module
 */

import type { QuotedInput } from "../dto/message_options.ts";
import type { MessagesResource, SendOptions, SendResponse } from "../resources/messages.ts";
import type { CallOptions } from "../resources/resource.ts";
import type { MessageRef } from "../resources/types.ts";
import { checkIdempotencyKey } from "../store/idempotency.ts";
import type { BotActions } from "./actions.ts";
import { type ActionOptions, checkActionOptions } from "./action_options.ts";
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
  /** The instance. */
  readonly instance: string;
}

/** The chat an action goes to; throws a clear `TypeError` for an update without one. */
export function chatOf(ctx: ActionSubject, action: string): string {
  const chat = ctx.chat?.id;
  if (chat === undefined) {
    throw new TypeError(`Cannot ${action}: this update (${ctx.payload?.rawEvent}) has no chat`);
  }
  return chat;
}

/** The key of the context's message, as WhatsApp addresses it; throws for an update without a message. */
export function messageRefOf(ctx: ActionSubject, action: string): MessageRef {
  const msg = ctx.msg;
  if (msg === undefined || msg.id === "") {
    throw new TypeError(`Cannot ${action}: this update (${ctx.payload?.rawEvent}) has no message`);
  }
  const ref: MessageRef = {
    remoteJid: ctx.payload?.remoteJid ?? chatOf(ctx, action),
    id: msg.id,
    fromMe: msg.fromMe,
  };
  const participant = ctx.payload?.participant;
  return participant === undefined ? ref : { ...ref, participant };
}

/** The context's message as a quote; throws for an update without a message (nothing to quote). */
export function quotedOf(ctx: ActionSubject): QuotedInput {
  const key = messageRefOf(ctx, "quote");
  const text = ctx.msg!.text;
  return { key, message: text === undefined ? undefined : { conversation: text } };
}

/** The keys of the messages to mark as read: every message of a burst (or the message alone). */
export function readRefsOf(ctx: ActionSubject): MessageRef[] {
  const first = messageRefOf(ctx, "mark as read");
  return ctx.messages.length > 0 ? ctx.messages.map((msg) => ({ ...first, id: msg.id })) : [first];
}

/** The context methods that act on the chat (a dialogue logs them, so a replay never repeats them). */
export const CONTEXT_ACTIONS: ReadonlySet<PropertyKey> = new Set([
  "reply",
  "replyWithMedia",
  "replyWithLocation",
  "replyWithContact",
  "replyWithPoll",
  "replyWithList",
  "replyWithButtons",
  "react",
  "markRead",
  "typing",
]);

/** One update's run of actions: the bot's actions and the positions given so far. */
export interface ActionRun {
  readonly actions: BotActions;
  readonly prefix: string;
  messages: number;
  reactions: number;
}

// A symbol, not a #private field: a dialogue's view of an earlier context (a Proxy) calls the actions with
// itself as `this`, so they read its message and share the live context's run (keys, positions).
const RUN: unique symbol = Symbol("gateway.bot.actionRun");

/** The run a context's actions share (a view's is its live context's). */
export function runOf(ctx: object): ActionRun {
  return (ctx as { [RUN]: ActionRun })[RUN];
}

/** Give a new context its run: the bot's actions, keys prefixed with the update's instance and id. */
export function startRun(ctx: object, actions: BotActions, instance: string, updateId: string): void {
  (ctx as { [RUN]: ActionRun })[RUN] = {
    actions,
    prefix: `bot:${instance}:${updateId}:`,
    messages: 0,
    reactions: 0,
  };
}

/**
 * How an action sends: checked options, chat, key (given, or the update's next position, taken before any
 * await), quote, then the bot's guarded send.
 */
export function deliver(
  ctx: ActionSubject,
  action: string,
  options: ActionOptions | undefined,
  send: (
    messages: MessagesResource,
    to: string,
    options: SendOptions | undefined,
    call: CallOptions,
  ) => Promise<SendResponse>,
): Promise<SendResponse> {
  checkActionOptions(action, options);
  const chat = chatOf(ctx, action === "react" ? "react" : "reply");
  const quoted = options?.quote === true ? quotedOf(ctx) : undefined;
  const given = options?.idempotencyKey;
  if (given !== undefined) checkIdempotencyKey(given);
  // Taken last, once nothing can refuse the action: a refused action takes no position.
  const run = runOf(ctx);
  const key = given ??
    (action === "react" ? `${run.prefix}react:${run.reactions++}` : `${run.prefix}${run.messages++}`);
  return run.actions.send(
    { instance: ctx.instance, chat, key },
    (api, call) => send(api.messages(), chat, quoted === undefined ? undefined : { quoted }, call),
  );
}
