/**
 * The HMAC-SHA256 keys of one verifier, made on first use and kept by that verifier only (there is no
 * module-level key cache: a verifier is the cache, and `verifyWebhook` keeps a few verifiers, see
 * `verifier.ts`). Internal.
 *
 * @module
 */

import { utf8 } from "../encoding.ts";
import { HmacSha256 } from "../../util/sha256.ts";
import { standardKeyBytes } from "./secrets.ts";

/** Which bytes a secret gives: its UTF-8 bytes (`hmac`, `jwt`), or its decoded `whsec_` body (`standard`). */
export type KeyKind = "utf8" | "standard";

/**
 * The keys of one verifier's secrets, per kind. An entry is null for a secret that cannot serve a kind: with
 * `auto`, only a secret written `whsec_...` is a Standard Webhooks secret.
 */
export class VerifierKeys {
  /** The configured secrets, in order (a rotation lists several). */
  readonly secrets: readonly string[];
  readonly #whsecOnly: boolean;
  readonly #keys: Record<KeyKind, readonly (HmacSha256 | null)[] | undefined> = {
    utf8: undefined,
    standard: undefined,
  };
  #tokens: Uint8Array[] | undefined;

  constructor(secrets: readonly string[], whsecOnly: boolean) {
    this.secrets = secrets;
    this.#whsecOnly = whsecOnly;
  }

  /** The keys of `kind`, made on first use. */
  of(kind: KeyKind): readonly (HmacSha256 | null)[] {
    return this.#keys[kind] ??= this.secrets.map((secret) => {
      if (kind === "utf8") return new HmacSha256(utf8(secret));
      if (this.#whsecOnly && !secret.startsWith("whsec_")) return null;
      return new HmacSha256(standardKeyBytes(secret));
    });
  }

  /**
   * Each key of `kind` signs `content` once; `accepts` compares that MAC with what the request carries, in
   * constant time (one signature per key instead of one verify per key and signature). The index of the
   * matching key, -1 when none matched, -2 when no secret can serve `kind`.
   */
  async match(kind: KeyKind, content: Uint8Array, accepts: (mac: Uint8Array) => boolean): Promise<number> {
    const keys = this.of(kind);
    let usable = false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === null) continue;
      usable = true;
      if (accepts(await key.sign(content))) return i;
    }
    return usable ? -1 : -2;
  }

  /** The secrets' bytes, for the `token` scheme's constant-time comparison. */
  tokens(): readonly Uint8Array[] {
    return this.#tokens ??= this.secrets.map(utf8);
  }
}
