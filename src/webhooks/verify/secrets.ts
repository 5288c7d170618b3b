/**
 * Secrets: the checks a configured secret passes when the receiver is built (a string, no surrounding
 * whitespace, a Standard Webhooks secret that decodes), the key bytes of each scheme, and new random
 * secrets. No message ever contains a secret.
 *
 * @module
 */

import { ConfigurationException } from "../../errors.ts";
import { fromBase64, toBase64, toHex } from "../encoding.ts";
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
