/**
 * Secrets: the checks a configured secret passes when the receiver is built (a string, no surrounding
 * whitespace, a Standard Webhooks secret that decodes; one shorter than the docs ask for is warned about
 * once), the list an environment variable holds (commas only), the key bytes of each scheme, and new random
 * secrets. No message ever contains a secret.
 *
 * @module
 */

import { ConfigurationException } from "../../errors.ts";
import { fromBase64, toBase64, toHex, utf8 } from "../encoding.ts";
import type { WebhookSignatureScheme } from "./types.ts";

function secretError(message: string): ConfigurationException {
  return new ConfigurationException(message, { setting: "signature.secret" });
}

/** The configured secrets as a list (empty when none), or a `ConfigurationException` naming the setting. */
export function checkSecrets(secret: string | readonly string[] | undefined): string[] {
  if (secret === undefined || secret === null) return [];
  const list = typeof secret === "string" ? [secret] : Array.isArray(secret) ? [...secret] : null;
  if (list === null) {
    throw secretError("Invalid webhook secret: expected a string or an array of strings");
  }
  if (list.length === 0) throw secretError("Invalid webhook secret: the array of secrets is empty");
  list.forEach((item, i) => {
    const which = list.length > 1 ? ` #${i + 1}` : "";
    if (typeof item !== "string") {
      throw secretError(`Invalid webhook secret${which}: expected a string`);
    }
    if (item.length === 0) throw secretError(`Invalid webhook secret${which}: it is empty`);
    if (item.trim() !== item) {
      throw secretError(
        `Invalid webhook secret${which}: it has leading or trailing whitespace (a newline copied with it?); ` +
          "the signer uses the exact bytes, so trim it where it is stored",
      );
    }
  });
  return list;
}

/** The key of a Standard Webhooks secret: `whsec_<base64>` (or bare base64) decoded; refused otherwise. */
export function standardKeyBytes(secret: string): Uint8Array {
  const body = secret.startsWith("whsec_") ? secret.slice(6) : secret;
  const bytes = fromBase64(body);
  if (bytes === null || bytes.length === 0) {
    throw secretError(
      'Invalid webhook secret: a Standard Webhooks secret is "whsec_" followed by base64 (the secret itself is not shown)',
    );
  }
  return bytes;
}

/** The shortest secret the docs ask for, in bytes: 32 (a `whsec_` key: 24 decoded bytes, its spec's minimum). */
export const MIN_SECRET_BYTES = 32;
const MIN_STANDARD_KEY_BYTES = 24;

// The stderr lines about secrets, each said once per process: configuration warnings must be seen without
// LogTape being configured, and not repeated for every handler a process builds.
const said = new Set<string>();

function sayOnce(key: string, line: string): void {
  if (said.has(key)) return;
  said.add(key);
  console.error(`[gateway] ${line}`);
}

/** Forget which warnings about secrets were said (tests). Internal. */
export function resetSecretWarnings(): void {
  said.clear();
}

/**
 * Warn once per process about the first secret shorter than the docs ask for (its length only). Not refused:
 * receivers configured with one before this check would stop accepting anything.
 */
export function warnWeakSecrets(secrets: readonly string[], standard: (secret: string) => boolean): void {
  for (let i = 0; i < secrets.length; i++) {
    const isKey = standard(secrets[i]);
    const bytes = isKey ? standardKeyBytes(secrets[i]).length : utf8(secrets[i]).length;
    const min = isKey ? MIN_STANDARD_KEY_BYTES : MIN_SECRET_BYTES;
    if (bytes >= min) continue;
    const which = `${isKey ? " (decoded whsec_ key)" : ""}${
      secrets.length > 1 ? ` #${i + 1} of ${secrets.length}` : ""
    }`;
    sayOnce(
      "weak",
      `Webhook secret${which} is ${bytes} bytes, shorter than the ${min} the docs ask for: a captured signature ` +
        "lets an attacker guess a short secret offline. Use a random one (openssl rand -hex 32, or " +
        "generateWebhookSecret()); it still works, and this is said once per process",
    );
    return;
  }
}

// Inside one secret of a variable, what looks like another separator.
const OTHER_SEPARATOR = /[\s;]/;

/**
 * The secrets of environment variable `name`: several are separated by commas, and by nothing else. Every
 * change is said on stderr (once per process), never the secrets: whitespace around an entry or an empty
 * entry removed (a trailing newline from `echo` is the usual case), a split into several secrets, a secret
 * with whitespace or `;` inside (kept as one secret). Set but empty: `""`, so that the receiver says
 * "empty" rather than "not set". Internal (the settings table's `secrets` kind).
 */
export function secretsFromEnv(name: string, value: string): string | string[] | undefined {
  if (value.trim() === "") return "";
  const parts = value.split(",");
  const list = parts.map((part) => part.trim()).filter((part) => part.length > 0);
  if (list.length !== parts.length || list.some((part, i) => part !== parts[i])) {
    sayOnce(
      `${name} trimmed`,
      `${name} had whitespace around a secret or an empty entry between commas; they were removed`,
    );
  }
  if (list.length > 1) {
    sayOnce(
      `${name} list`,
      `${name} holds ${list.length} secrets separated by commas (a rotation): a request signed with any of ` +
        "them is accepted",
    );
  }
  if (list.some((part) => OTHER_SEPARATOR.test(part))) {
    sayOnce(
      `${name} inside`,
      `${name} holds ${list.length === 1 ? "one secret" : "a secret"} with whitespace or ";" inside; it is ` +
        "used as one secret (several secrets are separated by commas only)",
    );
  }
  if (list.length === 0) return undefined;
  return list.length === 1 ? list[0] : list;
}

/**
 * A new random secret for a scheme: 32 random bytes as hex, or `whsec_<base64>` for `standard`.
 *
 * @example
 * ```ts
 * import { generateWebhookSecret } from "@gw/gateway/webhooks";
 * const secret = generateWebhookSecret("standard"); // "whsec_..."
 * ```
 */
export function generateWebhookSecret(scheme: WebhookSignatureScheme = "hmac"): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return scheme === "standard" ? `whsec_${toBase64(bytes)}` : toHex(bytes);
}
