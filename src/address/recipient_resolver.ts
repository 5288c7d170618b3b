import { MessageException } from "../errors.ts";
import type { StateStore } from "../store/state.ts";
import { normalizePhone, phoneMatchKey, phoneVariants } from "./phone.ts";

/** What `resolveRecipient` answers. */
export interface ResolvedRecipient {
  /** The number as given, in international digits (or the JID as given). */
  number: string;
  /** The JID to send to. */
  jid: string;
  /** True when `jid` is not the number as given (a BR/MX/AR variant, or a LID). */
  rewritten: boolean;
  /** True when the answer came from the store's cache (no request was made). */
  cached: boolean;
}

/** A row of the server's `whatsappNumbers` answer (the part used). */
export interface NumberCheckRow {
  /** The JID the server reports. */
  jid: string;
  /** Whether the account exists. */
  exists: boolean;
  /** The number as asked. */
  number: string;
}

/** What a resolution needs: the server question, the cache and the clock. */
export interface ResolveDependencies {
  /** Ask `/chat/whatsappNumbers` for these numbers. */
  ask(numbers: string[]): Promise<NumberCheckRow[]>;
  /** Cache (the store's state); without it every resolution asks. */
  state?: StateStore;
  /** Instance name: caches are per instance. */
  instance: string;
  /** Cache lifetime in ms. */
  ttlMs: number;
  /** Clock in epoch ms. */
  now: () => number;
}

/** Default lifetime of a cached recipient: seven days. */
export const RECIPIENT_CACHE_TTL_MS = 7 * 86_400_000;
const NAMESPACE = "recipient";

interface Cached {
  jid: string;
}

const ADDRESS = /@(g\.us|lid|broadcast|newsletter)$/;

/**
 * The JID `number`'s account is registered under (a JID is returned as given): cached per instance, else
 * asked once from `/chat/whatsappNumbers` with its variants (the number as given wins). Throws
 * `MessageException` (`not_on_whatsapp`) when none exists; negative answers are not cached.
 */
export async function resolveRecipientWith(
  deps: ResolveDependencies,
  number: string,
): Promise<ResolvedRecipient> {
  const text = number.trim();
  if (text.includes("@")) {
    if (ADDRESS.test(text) || /@s\.whatsapp\.net$/.test(text)) {
      return { number: text, jid: text, rewritten: false, cached: false };
    }
  }
  const digits = normalizePhone(text);
  const key = `${deps.instance}/${phoneMatchKey(digits)}`;
  const hit = deps.state === undefined ? null : await deps.state.get<Cached>(NAMESPACE, key);
  if (hit !== null) {
    return { number: digits, jid: hit.value.jid, rewritten: jidUser(hit.value.jid) !== digits, cached: true };
  }
  const variants = phoneVariants(digits);
  const rows = await deps.ask(variants);
  const existing = (Array.isArray(rows) ? rows : []).filter((row) =>
    row?.exists === true && typeof row.jid === "string"
  );
  const chosen = existing.find((row) => row.number === digits) ?? existing[0];
  if (chosen === undefined) {
    throw new MessageException(
      `Cannot send to "${digits}": not on WhatsApp (checked ${variants.map((v) => `"${v}"`).join(", ")})`,
      { reason: "not_on_whatsapp", instance: deps.instance },
    );
  }
  await deps.state?.set<Cached>(NAMESPACE, key, { jid: chosen.jid }, { expiresAt: deps.now() + deps.ttlMs });
  return { number: digits, jid: chosen.jid, rewritten: jidUser(chosen.jid) !== digits, cached: false };
}

function jidUser(jid: string): string {
  return jid.split("@")[0].split(":")[0];
}
