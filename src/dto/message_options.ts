/**
 * The options every send route shares (the server's "Metadata"): delay, quoting, link preview and mentions.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import type { Problems } from "./validate.ts";
import { compact, isRecord } from "../util/json_shape.ts";

/** The quoted message of a reply: the key's `id` is enough when the server stores messages. */
export interface QuotedInput {
  /** Key of the quoted message. */
  key: { id: string; remoteJid?: string; fromMe?: boolean; participant?: string };
  /** The quoted message content, when the server does not store messages. */
  message?: Record<string, unknown>;
}

/** Options shared by the send routes, as readonly fields of every message request object. */
export interface MessageOptions {
  /** Milliseconds of "composing" (or "recording") shown before the message; a non-negative integer. */
  readonly delay?: number;
  /** `false` disables the link preview. */
  readonly linkPreview?: boolean;
  /** Mention every group member. */
  readonly mentionsEveryOne?: boolean;
  /** Numbers to mention; each starts with a digit (repeats are dropped). */
  readonly mentioned?: readonly string[];
  /** Reply to this message. */
  readonly quoted?: QuotedInput;
}

/**
 * The option names, used to split a method's options object into body options and call options.
 *
 * @example
 * ```ts
 * import { MESSAGE_OPTION_KEYS } from "./message_options.ts";
 * MESSAGE_OPTION_KEYS.includes("delay"); // true
 * ```
 */
export const MESSAGE_OPTION_KEYS: readonly string[] = [
  "delay",
  "linkPreview",
  "mentionsEveryOne",
  "mentioned",
  "quoted",
];

/** Throws at once when the input is not an object: there are no fields to name. */
export function requireObject(input: unknown, what: string): Record<string, unknown> {
  if (!isRecord(input)) {
    throw new ValidationException(`Invalid ${what}: expected an object`, {
      messages: ["request must be an object"],
    });
  }
  return input;
}

/** Read the shared options, recording every problem. */
export function readMessageOptions(problems: Problems, input: Record<string, unknown>): MessageOptions {
  const delay = problems.number("delay", input.delay, { integer: true, min: 0 });
  const linkPreview = problems.bool("linkPreview", input.linkPreview);
  const mentionsEveryOne = problems.bool("mentionsEveryOne", input.mentionsEveryOne);
  // The server's schema lists `everyOne` but never reads it: refuse it rather than drop it.
  if (input.everyOne !== undefined) problems.add("everyOne is not read by the server; use mentionsEveryOne");
  let mentioned: string[] | undefined;
  const list = problems.array("mentioned", input.mentioned, { minItems: 1 });
  if (list) {
    const seen = new Set<string>();
    let ok = true;
    list.forEach((item, index) => {
      if (typeof item !== "string" || !/^\d/.test(item.trim())) {
        problems.add(`mentioned[${index}] must be a number starting with a digit`);
        ok = false;
      } else if (seen.has(item.trim())) {
        problems.add(`mentioned[${index}] repeats ${JSON.stringify(item.trim())}`);
        ok = false;
      } else seen.add(item.trim());
    });
    if (ok) mentioned = [...seen];
  }
  let quoted: QuotedInput | undefined;
  const quotedInput = problems.object("quoted", input.quoted);
  if (quotedInput) {
    const key = problems.messageKey("quoted.key", quotedInput.key, ["id"]);
    const message = problems.object("quoted.message", quotedInput.message);
    if (key) quoted = compact({ key, message }) as unknown as QuotedInput;
  }
  return compact({ delay, linkPreview, mentionsEveryOne, mentioned, quoted });
}
