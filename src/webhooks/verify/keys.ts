/**
 * The HMAC-SHA256 keys of one verifier, imported with Web Crypto on first use and kept by that verifier only
 * (there is no module-level key cache: a verifier is the cache, and `verifyWebhook` keeps a few verifiers, see
 * `verifier.ts`). Internal.
 *
 * @module
 */

import { utf8 } from "../encoding.ts";
import { standardKeyBytes } from "./secrets.ts";

/** Which bytes a secret gives: its UTF-8 bytes (`hmac`, `jwt`), or its decoded `whsec_` body (`standard`). */
export type KeyKind = "utf8" | "standard";

/** Import `material` as an HMAC-SHA256 signing key (Web Crypto). */
export function importHmacKey(material: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    material as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
}

/** The HMAC-SHA256 of `content` (Web Crypto). */
export function hmac(key: CryptoKey, content: Uint8Array): Promise<ArrayBuffer> {
  return crypto.subtle.sign("HMAC", key, content as Uint8Array<ArrayBuffer>);
}

/**
 * The keys of one verifier's secrets, per kind. An entry is null for a secret that cannot serve a kind: with
 * `auto`, only a secret written `whsec_...` is a Standard Webhooks secret.
 */
export class VerifierKeys {
  /** The configured secrets, in order (a rotation lists several). */
  readonly secrets: readonly string[];
  /** The keys once imported, per kind: read directly by the one-secret fast path of `hmac`. */
  readonly ready: Record<KeyKind, readonly (CryptoKey | null)[] | undefined> = {
    utf8: undefined,
    standard: undefined,
  };
  readonly #whsecOnly: boolean;
  readonly #pending: Record<KeyKind, Promise<(CryptoKey | null)[]> | undefined> = {
    utf8: undefined,
    standard: undefined,
  };
  #tokens: Uint8Array[] | undefined;

  constructor(secrets: readonly string[], whsecOnly: boolean) {
    this.secrets = secrets;
    this.#whsecOnly = whsecOnly;
  }

  /** Import the keys of `kind` (once; a failed import is tried again next time). */
  load(kind: KeyKind): Promise<readonly (CryptoKey | null)[]> {
    let pending = this.#pending[kind];
    if (pending === undefined) {
      pending = Promise.all(this.secrets.map((secret) => {
        if (kind === "utf8") return importHmacKey(utf8(secret));
        if (this.#whsecOnly && !secret.startsWith("whsec_")) return null;
        return importHmacKey(standardKeyBytes(secret));
      }));
      this.#pending[kind] = pending;
      pending.then((keys) => this.ready[kind] = keys, () => this.#pending[kind] = undefined);
    }
    return pending;
  }

  /**
   * Each key of `kind` signs `content` once; `accepts` compares that MAC with what the request carries, in
   * constant time (one signature per key instead of one verify per key and signature). The index of the
   * matching key, -1 when none matched, -2 when no secret can serve `kind`.
   */
  async match(kind: KeyKind, content: Uint8Array, accepts: (mac: Uint8Array) => boolean): Promise<number> {
    const keys = this.ready[kind] ?? await this.load(kind);
    let usable = false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      if (key === null) continue;
      usable = true;
      if (accepts(new Uint8Array(await hmac(key, content)))) return i;
    }
    return usable ? -1 : -2;
  }

  /** The secrets' bytes, for the `token` scheme's constant-time comparison. */
  tokens(): readonly Uint8Array[] {
    return this.#tokens ??= this.secrets.map(utf8);
  }
}
