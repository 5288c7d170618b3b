/**
 * The options every send route shares (the server's "Metadata"): delay, quoting, link preview and mentions.
 *
 * @module
 */

import { type FieldSpec, numberListSchema } from "./body_spec.ts";
import type { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";
import { MAX_SERVER_DELAY_MS } from "../timing.ts";

/** The quoted message of a reply: the key's `id` is enough when the server stores messages. */
export interface QuotedInput {
  /** Key of the quoted message. */
  key: { id: string; remoteJid?: string; fromMe?: boolean; participant?: string };
  /** The quoted message content, when the server does not store messages. */
  message?: Record<string, unknown>;
}

/** Options shared by the send routes, as readonly fields of every message request object. */
export interface MessageOptions {
  /** Milliseconds of "composing" (or "recording") shown before the message; an integer from 0 to 300 000. */
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

/** The option names, used to split a method's options object into body options and call options. */
export const MESSAGE_OPTION_KEYS: readonly string[] = [
  "delay",
  "linkPreview",
  "mentionsEveryOne",
  "mentioned",
  "quoted",
];

export { requireObject } from "./body_spec.ts";

/**
 * The options every send route shares, as the server declares them (in its order) and as the request objects
 * check them: `delay` an integer from 0 to `MAX_SERVER_DELAY_MS`, `quoted` a message key with an `id`, `mentioned` numbers without
 * repeats; `everyOne` is refused (the server lists it but never reads it).
 */
export const MESSAGE_OPTION_FIELDS: Readonly<Record<string, FieldSpec>> = {
  delay: {
    type: "integer",
    min: 0,
    max: MAX_SERVER_DELAY_MS,
    server: { type: "integer", description: "Enter a value in milliseconds" },
  },
  quoted: {
    type: "object",
    read: readQuoted,
    server: {
      properties: {
        key: {
          type: "object",
          properties: {
            id: { type: "string" },
            remoteJid: { type: "string" },
            fromMe: { type: "boolean", enum: [true, false] },
          },
          required: ["id"],
          notEmpty: ["id"],
        },
        message: { type: "object" },
      },
    },
  },
  mentionsEveryOne: { type: "boolean", strictBoolean: true },
  everyOne: { type: "boolean", strictBoolean: true, read: refuseEveryOne },
  mentioned: {
    type: "array",
    read: readMentioned,
    server: numberListSchema("mentioned"),
  },
};

/** `linkPreview`: a `/message/sendText` field, accepted by every message request object. */
export const LINK_PREVIEW_FIELD: FieldSpec = { type: "boolean", server: false };

function refuseEveryOne(problems: Problems, _field: string, value: unknown): undefined {
  if (value !== undefined) problems.add("everyOne is not read by the server; use mentionsEveryOne");
  return undefined;
}

function readMentioned(problems: Problems, field: string, value: unknown): string[] | undefined {
  const list = problems.array(field, value, { minItems: 1 });
  if (!list) return undefined;
  const seen = new Set<string>();
  let ok = true;
  list.forEach((item, index) => {
    if (typeof item !== "string" || !/^\d/.test(item.trim())) {
      problems.add(`${field}[${index}] must be a number starting with a digit`);
      ok = false;
    } else if (seen.has(item.trim())) {
      problems.add(`${field}[${index}] repeats ${JSON.stringify(item.trim())}`);
      ok = false;
    } else seen.add(item.trim());
  });
  return ok ? [...seen] : undefined;
}

function readQuoted(problems: Problems, field: string, value: unknown): QuotedInput | undefined {
  const quoted = problems.object(field, value);
  if (!quoted) return undefined;
  const key = problems.messageKey(`${field}.key`, quoted.key, ["id"]);
  const message = problems.object(`${field}.message`, quoted.message);
  return key ? compact({ key, message }) as unknown as QuotedInput : undefined;
}
