import type { MediaKind } from "../media/media_input.ts";
import { checkOptionKeys, type OptionKeys } from "../option_keys.ts";

/** What every action that sends takes: quote the message being answered, and the action's own key. */
export interface ActionOptions {
  /** Quote the message this context stands for. */
  quote?: boolean;
  /**
   * The key instead of the derived one, used as given (across updates too): a key that already sent within
   * its window (default 24 h) sends nothing, whatever the body, and answers `replayed`.
   */
  idempotencyKey?: string;
}

/** Options of {@link Context.reply}. */
export interface ReplyOptions extends ActionOptions {
  /** Numbers to mention. */
  mentioned?: string[];
  /** `false` disables the link preview. */
  linkPreview?: boolean;
}

/** Options of {@link Context.replyWithMedia}. */
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

/** Options of {@link Context.replyWithLocation}. */
export interface ReplyWithLocationOptions extends ActionOptions {
  /** The place's name. */
  name?: string;
  /** Its address. */
  address?: string;
}

/** Options of {@link Context.replyWithPoll}. */
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
