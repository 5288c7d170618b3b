/**
 * The people and groups of a {@link BotHarness}: they message the bot and list its answers.
 *
 * @module
 */

import {
  buttonReplyContent,
  imageContent,
  type ImageOptions,
  listReplyContent,
  reactionContent,
  type WebhookEnvelope,
} from "./bot_payloads.ts";
import { createJid } from "./simulator/jid.ts";
import type { SentMessageRecord } from "./simulator/types.ts";

/** What people and groups of a harness use of it. */
export interface HarnessPort {
  readonly sent: readonly SentMessageRecord[];
  now(): number;
  deliver(event: string, data: unknown): Promise<WebhookEnvelope>;
  inbound(
    chat: { remoteJid: string; remoteJidAlt?: string; participant?: string },
    pushName: string,
    message: Record<string, unknown>,
    contextInfo?: Record<string, unknown> | null,
  ): Promise<WebhookEnvelope>;
  inboundText(
    options: { from: string; text: string; pushName: string; fromLid?: string; participant?: string },
  ): Promise<WebhookEnvelope>;
}

/**
 * A person talking to the bot in a harness.
 *
 * @example
 * ```ts
 * import { Bot } from "@gw/gateway/bot";
 * import { BotHarness } from "@gw/gateway/testing";
 * const bot = new Bot();
 * bot.on("message:image", (ctx) => ctx.reply(`nice ${ctx.msg.caption ?? "picture"}`));
 * await using h = new BotHarness(bot);
 * const ana = h.user("5511999999999", { name: "Ana" });
 * await ana.sendImage({ caption: "cat" });
 * console.log(ana.replies.at(-1)?.text); // "nice cat"
 * ```
 */
export class HarnessUser {
  /** The person's phone JID. */
  readonly jid: string;
  /** Their `@lid` JID, when they write as one. */
  readonly lid: string | undefined;
  /** Their display name (`pushName`). */
  readonly name: string;
  readonly #harness: HarnessPort;

  /** @internal Made by {@link BotHarness.user}. */
  constructor(harness: HarnessPort, number: string, options: { name?: string; lid?: string }) {
    this.#harness = harness;
    this.jid = createJid(number);
    this.lid = options.lid === undefined
      ? undefined
      : createJid(options.lid.includes("@") ? options.lid : `${options.lid}@lid`);
    this.name = options.name ?? "Contact";
  }

  /** What the bot sent to this person, oldest first (`text` is the text or caption). */
  get replies(): readonly SentMessageRecord[] {
    return this.#harness.sent.filter((m) => m.remoteJid === this.jid || m.remoteJid === this.lid);
  }

  /** Send a text; resolves when the bot handled it. */
  send(text: string): Promise<WebhookEnvelope> {
    return this.#harness.inboundText({ from: this.jid, text, pushName: this.name, fromLid: this.lid });
  }

  /** Send an image (with an optional caption). */
  sendImage(options: ImageOptions = {}): Promise<WebhookEnvelope> {
    return this.#harness.inbound(this.#address(), this.name, imageContent(options));
  }

  /** React to a message (one of the bot's replies, or a message id); `""` removes the reaction. */
  react(target: SentMessageRecord | string, emoji: string): Promise<WebhookEnvelope> {
    const { id, fromMe } = targetOf(target);
    const content = reactionContent(this.#address().remoteJid, id, fromMe, emoji, this.#harness.now());
    return this.#harness.inbound(this.#address(), this.name, content);
  }

  /** Tap a button (`buttonId`) of the bot's last reply (or of `on`). */
  clickButton(
    buttonId: string,
    options: { text?: string; on?: SentMessageRecord } = {},
  ): Promise<WebhookEnvelope> {
    const on = options.on ?? this.replies.at(-1);
    const { message, contextInfo } = buttonReplyContent(
      buttonId,
      options.text ?? buttonId,
      on && targetOf(on).id,
    );
    return this.#harness.inbound(this.#address(), this.name, message, contextInfo);
  }

  /** Choose the row `rowId` of the bot's last list (or of `on`). */
  chooseRow(
    rowId: string,
    options: { title?: string; on?: SentMessageRecord } = {},
  ): Promise<WebhookEnvelope> {
    const on = options.on ?? this.replies.at(-1);
    const { message, contextInfo } = listReplyContent(rowId, options.title ?? rowId, on && targetOf(on).id);
    return this.#harness.inbound(this.#address(), this.name, message, contextInfo);
  }

  #address(): { remoteJid: string; remoteJidAlt?: string } {
    return this.lid === undefined ? { remoteJid: this.jid } : { remoteJid: this.lid, remoteJidAlt: this.jid };
  }
}

/**
 * A group chat in a harness.
 *
 * @example
 * ```ts
 * import { Bot } from "@gw/gateway/bot";
 * import { BotHarness } from "@gw/gateway/testing";
 * const bot = new Bot();
 * bot.on("group:join", (ctx) => ctx.reply("Welcome!"));
 * await using h = new BotHarness(bot);
 * const team = await h.group("Team");
 * await team.join(h.user("5511999999999"));
 * console.log(team.replies.at(-1)?.text); // "Welcome!"
 * ```
 */
export class HarnessGroup {
  /** The group's JID. */
  readonly jid: string;
  readonly #harness: HarnessPort;

  /** @internal Made by {@link BotHarness.group}. */
  constructor(harness: HarnessPort, jid: string) {
    this.#harness = harness;
    this.jid = jid;
  }

  /** What the bot sent to the group, oldest first. */
  get replies(): readonly SentMessageRecord[] {
    return this.#harness.sent.filter((m) => m.remoteJid === this.jid);
  }

  /** `user` writes `text` in the group. */
  send(user: HarnessUser, text: string): Promise<WebhookEnvelope> {
    return this.#harness.inboundText({ from: this.jid, participant: user.jid, text, pushName: user.name });
  }

  /** `user` was added to the group (`group-participants.update`, action `add`). */
  join(user: HarnessUser): Promise<WebhookEnvelope> {
    return this.#participants("add", user);
  }

  /** `user` left the group (`group-participants.update`, action `remove`). */
  leave(user: HarnessUser): Promise<WebhookEnvelope> {
    return this.#participants("remove", user);
  }

  #participants(action: string, user: HarnessUser): Promise<WebhookEnvelope> {
    return this.#harness.deliver("group-participants.update", {
      id: this.jid,
      participants: [user.jid],
      action,
    });
  }
}

function targetOf(target: SentMessageRecord | string): { id: string; fromMe: boolean } {
  if (typeof target === "string") return { id: target, fromMe: false };
  const key = target.message.key as { id?: string } | undefined;
  if (typeof key?.id !== "string") throw new TypeError("Cannot target a message: it has no key.id");
  return { id: key.id, fromMe: true };
}
