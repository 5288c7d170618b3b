import { ValidationException } from "../errors.ts";
import { normalizePhone } from "./phone.ts";

/** What kind of address a {@link Recipient} is. */
export type RecipientKind = "user" | "group" | "lid" | "broadcast" | "newsletter";

/** An address parsed by {@link parseRecipient}. */
export interface Recipient {
  /** `user` (phone-number JID), `lid`, `group`, `broadcast` or `newsletter`. */
  kind: RecipientKind;
  /** The JID, without a device suffix (`5511999999999@s.whatsapp.net`, `123@lid`, `1203...@g.us`). */
  jid: string;
  /** The phone digits, for a `user`. */
  phone?: string;
  /** The LID JID, for a `lid`. */
  lid?: string;
}

const SERVERS: Readonly<Record<string, RecipientKind>> = {
  "s.whatsapp.net": "user",
  "c.us": "user",
  "lid": "lid",
  "g.us": "group",
  "broadcast": "broadcast",
  "newsletter": "newsletter",
};

const USER_PART: Readonly<Record<RecipientKind, RegExp>> = {
  user: /^\d{5,20}$/,
  lid: /^\d{5,30}$/,
  group: /^\d+(-\d+)?$/,
  broadcast: /^[0-9A-Za-z._-]+$/,
  newsletter: /^\d+$/,
};

/**
 * Parse a JID or a phone number. Device (`:12`) and agent (`_1`) suffixes are dropped: a reply goes to
 * the account, not to one of its devices. A phone number must be international (see `normalizePhone`).
 *
 * @example
 * ```ts
 * import { parseRecipient } from "@gw/gateway/delivery";
 * parseRecipient("+55 11 99999-9999"); // { kind: "user", jid: "5511999999999@s.whatsapp.net", phone: "5511999999999" }
 * parseRecipient("123456789012345:3@lid"); // { kind: "lid", jid: "123456789012345@lid", lid: "123456789012345@lid" }
 * parseRecipient("120363025246125888@g.us").kind; // "group"
 * ```
 */
export function parseRecipient(value: string): Recipient {
  if (typeof value !== "string") {
    throw new ValidationException(`Invalid recipient: expected a string, got ${typeof value}`);
  }
  const text = value.trim();
  const at = text.lastIndexOf("@");
  if (at < 0) {
    const phone = normalizePhone(text);
    return { kind: "user", jid: `${phone}@s.whatsapp.net`, phone };
  }
  const server = text.slice(at + 1).toLowerCase();
  const kind = SERVERS[server];
  const user = text.slice(0, at).split(":")[0].split("_")[0];
  if (kind === undefined || !USER_PART[kind].test(user)) {
    throw new ValidationException(`Invalid recipient ${JSON.stringify(value)}: not a JID the server knows`, {
      messages: ["a JID ends in @s.whatsapp.net, @lid, @g.us, @broadcast or @newsletter"],
    });
  }
  const jid = `${user}@${server === "c.us" ? "s.whatsapp.net" : server}`;
  if (kind === "user") return { kind, jid, phone: user };
  if (kind === "lid") return { kind, jid, lid: jid };
  return { kind, jid };
}
