/**
 * Argument checks the resources share (group ids, invite codes, message keys), before any request.
 *
 * @module
 */

import { ValidationException } from "../errors.ts";
import type { MessageRef } from "./types.ts";
import { Problems } from "../dto/validate.ts";

/** Run field checks with a problem collector and throw them all at once. */
export function check<T>(what: string, read: (problems: Problems) => T): T {
  const problems = new Problems();
  const value = read(problems);
  problems.throwIfAny(what);
  return value;
}

const GROUP_JID = /^[0-9]+(-[0-9]+)?@g\.us$/;

/** A group id: `@g.us` is appended when missing (what the server does too). */
export function readGroupJid(problems: Problems, value: unknown, field = "groupJid"): string | undefined {
  const text = problems.text(field, value, { required: true })?.trim();
  if (text === undefined) return undefined;
  const jid = text.includes("@") ? text : `${text}@g.us`;
  if (!GROUP_JID.test(jid)) {
    problems.add(`${field} must be a group id like "120363025246125888@g.us"; got ${JSON.stringify(text)}`);
    return undefined;
  }
  return jid;
}

/** Validate one group id, throwing at once. */
export function groupJid(value: unknown): string {
  return check("group id", (problems) => readGroupJid(problems, value)!);
}

/** An invite code: 22 alphanumeric characters, or a `chat.whatsapp.com` link to one. */
export function inviteCode(value: unknown): string {
  return check("invite code", (problems) => {
    const text = problems.text("inviteCode", value, { required: true })?.trim();
    if (text === undefined) return undefined!;
    const code = text.replace(/^https?:\/\/chat\.whatsapp\.com\//i, "");
    if (!/^[A-Za-z0-9]{22}$/.test(code)) {
      problems.add(
        `inviteCode must be 22 letters and digits (or a chat.whatsapp.com link); got ${JSON.stringify(text)}`,
      );
    }
    return code;
  });
}

/** Validate message keys `{ remoteJid, id, fromMe, participant? }`. */
export function messageRefs(field: string, values: readonly unknown[]): MessageRef[] {
  return check("message key", (problems) => {
    if (values.length === 0) problems.add(`${field} must have at least 1 item`);
    return values.map((value, index) =>
      problems.messageKey(values.length === 1 ? field : `${field}[${index}]`, value)
    ) as MessageRef[];
  });
}

/** Validate one recipient, throwing at once. */
export function recipient(value: unknown, field = "number"): string {
  return check("recipient", (problems) => problems.recipient(field, value)!);
}

/** Throw a single-field validation error. */
export function invalid(what: string, message: string): never {
  throw new ValidationException(`Invalid ${what}: ${message}`, { messages: [message] });
}
