/**
 * The options of the context's actions (`reply`, `replyWithMedia`, `replyWithLocation`, ...), and their check:
 * an unknown key is refused with a suggestion before any request.
 *
 * @module
 */

import type { MediaKind } from "../media/media_input.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";

/**
 * What every action that sends takes: quote the message being answered, and the action's own key.
 *
 * @example
 * ```ts
 * import type { ActionOptions } from "@gw/gateway/bot";
 * const options: ActionOptions = { quote: true, idempotencyKey: "welcome-5511999999999" };
 * ```
 */
export interface ActionOptions {
  /** Quote the message this context stands for. */
  quote?: boolean;
  /**
   * The action's idempotency key, instead of the one derived from the update and the action's position.
   * Used as given (across updates too): an action whose key already sent a message within the key's window
   * (24 h by default) is not sent again, whatever its body, and answers `replayed`.
   */
  idempotencyKey?: string;
}

/**
 * Options of {@link Context.reply}.
 *
 * @example
 * ```ts
 * import type { ReplyOptions } from "@gw/gateway/bot";
 * const options: ReplyOptions = { quote: true, linkPreview: false };
 * ```
 */
export interface ReplyOptions extends ActionOptions {
  /** Numbers to mention. */
  mentioned?: string[];
  /** `false` disables the link preview. */
  linkPreview?: boolean;
}

/**
 * Options of {@link Context.replyWithMedia}.
 *
 * @example
 * ```ts
 * import type { ReplyWithMediaOptions } from "@gw/gateway/bot";
 * const options: ReplyWithMediaOptions = { type: "document", fileName: "invoice.pdf", caption: "Your invoice" };
 * ```
 */
export interface ReplyWithMediaOptions extends ActionOptions {
  /** The media kind: `image`, `video`, `audio` (a voice note), `document` or `sticker`. */
  type: MediaKind;
  /** Caption (image, video, document). */
  caption?: string;
  /** File name (documents). */
  fileName?: string;
  /** MIME type instead of the sniffed one. */
  mimetype?: string;
}

/**
 * Options of {@link Context.replyWithLocation}.
 *
 * @example
 * ```ts
 * import type { ReplyWithLocationOptions } from "@gw/gateway/bot";
 * const options: ReplyWithLocationOptions = { name: "Shop", address: "Av. Paulista, 1000" };
 * ```
 */
export interface ReplyWithLocationOptions extends ActionOptions {
  /** The place's name. */
  name?: string;
  /** Its address. */
  address?: string;
}

/**
 * Options of {@link Context.replyWithPoll}.
 *
 * @example
 * ```ts
 * import type { ReplyWithPollOptions } from "@gw/gateway/bot";
 * const options: ReplyWithPollOptions = { selectableCount: 2 };
 * ```
 */
export interface ReplyWithPollOptions extends ActionOptions {
  /** How many answers one person may choose (default 1; 0: any number). */
  selectableCount?: number;
}

const ACTION: OptionKeys = { quote: true, idempotencyKey: true };

/** The option keys of each action. */
export const ACTION_OPTION_KEYS: Readonly<Record<string, OptionKeys>> = {
  reply: { ...ACTION, mentioned: true, linkPreview: true },
  replyWithMedia: { ...ACTION, type: true, caption: true, fileName: true, mimetype: true },
  replyWithLocation: { ...ACTION, name: true, address: true },
  replyWithContact: ACTION,
  replyWithPoll: { ...ACTION, selectableCount: true },
  replyWithList: ACTION,
  replyWithButtons: ACTION,
  react: { idempotencyKey: true },
};

/** Refuse an unknown option key of `action` (`ctx.reply: "quoted" is not an option; did you mean "quote"?`). */
export function checkActionOptions(action: string, options: object | undefined): void {
  if (options !== undefined) checkOptionKeys(options, ACTION_OPTION_KEYS[action], `ctx.${action}`);
}
