/**
 * Idempotency claims: at most one send per (connection, instance, idempotency key) within a window, across
 * every process that shares the store. Built on `StateStore` (namespace `idempotency`), so every backend
 * that has `store.state` supports it.
 *
 * A claim moves `in_flight` (one owner, until `claimedUntil`) → `done` (the answer, replayed to later
 * calls), `unknown` (the send may have happened: later calls are refused until it is reconciled) or
 * `released` (nothing was sent: a later call may send). An `in_flight` claim past its `claimedUntil`
 * belongs to a sender that died mid-send and reads as `unknown`.
 *
 * @module
 */

import { OutcomeUnknownException, ValidationException } from "../errors.ts";
import { sha256Hex } from "../util/sha256.ts";
import type { StateEntry, StateStore } from "./state.ts";

/** The `StateStore` namespace of idempotency claims. */
export const IDEMPOTENCY_NAMESPACE = "idempotency";

/** How long a key holds by default: 24 hours. */
export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 86_400_000;

/** Longest idempotency key accepted (the length Stripe accepts). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Where a claim stands. */
export type IdempotencyClaimState = "in_flight" | "done" | "unknown" | "released";

/** What is kept to answer a later call with the first call's response. */
export interface StoredSendResponse {
  /** HTTP status of the first call's answer. */
  status: number;
  /** Its parsed JSON body. */
  body: unknown;
}

/** One claim, as stored in `store.state`. */
export interface IdempotencyClaim {
  /** Where the claim stands. */
  state: IdempotencyClaimState;
  /** Who holds (or last held) it: a random id per sending call. */
  owner: string;
  /** While `in_flight`: when the owner's deadline ends (epoch ms). */
  claimedUntil: number;
  /** SHA-256 of the route and body: a key reused for a different request is refused. */
  fingerprint: string;
  /** The outbound record of the send, when a store records sends. */
  recordId: string;
  /** When `done`: the first call's answer. */
  response?: StoredSendResponse;
  /** When `done`: the server's message id. */
  messageId?: string;
  /** When the claim was first taken (epoch ms). */
  createdAt: number;
  /** When the key's window ends (epoch ms): a settled claim is forgotten then, and the key may send again. */
  windowEndsAt: number;
  /** When it last changed (epoch ms). */
  updatedAt: number;
}

/** The (connection, instance, key) a claim is for. */
export interface IdempotencyScope {
  /** Connection name. */
  connection: string;
  /** Instance name. */
  instance: string;
  /** The caller's idempotency key. */
  key: string;
}

/** The scope of the key an outbound record was sent with, or undefined for a record sent without one. */
export function recordKeyScope(
  record: { connection: string; instance: string; idempotencyKey?: string },
): IdempotencyScope | undefined {
  const key = record.idempotencyKey;
  return key === undefined ? undefined : { connection: record.connection, instance: record.instance, key };
}

/** What the caller of {@link IdempotencyClaims.acquire} wants to claim. */
export interface ClaimRequest {
  /** See {@link IdempotencyClaim.fingerprint}. */
  fingerprint: string;
  /** The record id to link when the claim is new (a released claim keeps its own). */
  recordId: string;
  /** The caller's deadline: how long it may hold the claim in flight. */
  claimedUntil: number;
}

/** How {@link IdempotencyClaims.acquire} waits for a claim in flight. */
export interface ClaimWait {
  /** Stop waiting at this time (epoch ms): the caller's own deadline. */
  deadlineAt: number;
  /** Stops the wait at once. */
  signal?: AbortSignal;
  /** Abortable sleep (injected in tests). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** What {@link IdempotencyClaims.acquire} got. */
export type ClaimResult =
  /** The caller holds the claim and may send; `previous` is the released claim it took over, if any. */
  | { kind: "owner"; claim: IdempotencyClaim; version: string; previous?: IdempotencyClaim }
  /** An earlier send with the key is done: return its answer. */
  | { kind: "done"; claim: IdempotencyClaim }
  /** Another sender holds it (only when not waiting). */
  | { kind: "in_flight"; claim: IdempotencyClaim }
  /** An earlier send's outcome is unknown (only when not waiting; waiting callers get the exception). */
  | { kind: "unknown"; claim: IdempotencyClaim; version: string };

const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 250;

/** JSON with object keys sorted, so that the same request always gives the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    return Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** The fingerprint of a send: SHA-256 (hex) of its route template and canonical JSON body. */
export function sendFingerprint(route: string, body: unknown): string {
  return sha256Hex(`${route}\n${canonicalJson(body)}`);
}

/** Refuse a key that is not a non-empty string of at most 255 characters (`ValidationException`). */
export function checkIdempotencyKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key.trim() === "" || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ValidationException(
      `Invalid idempotencyKey: expected a non-empty string of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      { messages: ["idempotencyKey must be a non-empty string of at most 255 characters"] },
    );
  }
}

/**
 * The idempotency claims in a `StateStore`. Exact across processes when the state is shared (`KvState`
 * on one KV file, Deno Deploy); within one process with `MemoryState`.
 */
export class IdempotencyClaims {
  readonly #state: StateStore;
  readonly #windowMs: number;
  readonly #now: () => number;

  /** Claims in `state`, each held for `windowMs` (default 24 h) from its first send. */
  constructor(state: StateStore, options: { windowMs?: number; now?: () => number } = {}) {
    const windowMs = options.windowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS;
    if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
      throw new RangeError(
        `Cannot create idempotency claims: "windowMs" must be a positive integer, got "${String(windowMs)}"`,
      );
    }
    this.#state = state;
    this.#windowMs = windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** How long a key holds, in ms. */
  get windowMs(): number {
    return this.#windowMs;
  }

  /** The state key of a scope: its three parts, each percent-encoded, so no two scopes share one. */
  static keyOf(scope: IdempotencyScope): string {
    return [scope.connection, scope.instance, scope.key].map(encodeURIComponent).join("/");
  }

  /** Read a claim as it stands now: an `in_flight` claim past its `claimedUntil` reads as `unknown`. */
  async read(scope: IdempotencyScope): Promise<StateEntry<IdempotencyClaim> | null> {
    const entry = await this.#state.get<IdempotencyClaim>(
      IDEMPOTENCY_NAMESPACE,
      IdempotencyClaims.keyOf(scope),
    );
    if (entry === null) return null;
    return { ...entry, value: this.#effective(entry.value) };
  }

  #effective(claim: IdempotencyClaim): IdempotencyClaim {
    return claim.state === "in_flight" && claim.claimedUntil <= this.#now()
      ? { ...claim, state: "unknown" }
      : claim;
  }

  /**
   * Take the claim for a send, or learn why not. Without `wait`, a claim in flight or unknown is reported
   * as such. With `wait`, a claim in flight is polled until it settles or the wait's deadline passes: a
   * `done` claim is returned, an `unknown` one throws `OutcomeUnknownException`, and a claim still in
   * flight at the deadline throws `OutcomeUnknownException` too (the other send may still complete).
   * A key reused for a different request (another fingerprint) throws `ValidationException`.
   */
  async acquire(scope: IdempotencyScope, request: ClaimRequest, wait?: ClaimWait): Promise<ClaimResult> {
    const stateKey = IdempotencyClaims.keyOf(scope);
    let pollMs = FIRST_POLL_MS;
    while (true) {
      const entry = await this.#state.get<IdempotencyClaim>(IDEMPOTENCY_NAMESPACE, stateKey);
      const now = this.#now();
      const current = entry === null ? null : this.#effective(entry.value);
      if (current !== null && current.fingerprint !== request.fingerprint) {
        throw new ValidationException(
          `Cannot send with idempotency key "${scope.key}": it was used for a different request within its window`,
          { messages: ["idempotencyKey was used for a different request"], instance: scope.instance },
        );
      }
      if (current === null || current.state === "released") {
        const owned = await this.#take(stateKey, request, current, entry?.version ?? null, now);
        if (owned !== null) return owned;
        continue;
      }
      if (current.state === "done") return { kind: "done", claim: current };
      if (current.state === "unknown") {
        if (wait === undefined) return { kind: "unknown", claim: current, version: entry!.version };
        throw new OutcomeUnknownException(scope.key, {
          recordId: current.recordId,
          connection: scope.connection,
          instance: scope.instance,
        });
      }
      if (wait === undefined) return { kind: "in_flight", claim: current };
      const left = Math.min(wait.deadlineAt, current.claimedUntil) - now;
      if (left <= 0) {
        // Past our own deadline (the other sender is still within its own): we cannot say what happened.
        throw new OutcomeUnknownException(scope.key, {
          recordId: current.recordId,
          inFlight: true,
          connection: scope.connection,
          instance: scope.instance,
        });
      }
      await wait.sleep(Math.min(pollMs, left), wait.signal);
      pollMs = Math.min(pollMs * 2, MAX_POLL_MS);
    }
  }

  /** Write a new in-flight claim over `current` (none or released); null when another writer came first. */
  async #take(
    stateKey: string,
    request: ClaimRequest,
    current: IdempotencyClaim | null,
    expectedVersion: string | null,
    now: number,
  ): Promise<ClaimResult | null> {
    const claim: IdempotencyClaim = {
      state: "in_flight",
      owner: crypto.randomUUID(),
      claimedUntil: request.claimedUntil,
      fingerprint: request.fingerprint,
      recordId: current?.recordId ?? request.recordId,
      createdAt: current?.createdAt ?? now,
      windowEndsAt: current?.windowEndsAt ?? now + this.#windowMs,
      updatedAt: now,
    };
    // Held at least while in flight, even past a window shorter than the send's deadline.
    const expiresAt = Math.max(claim.windowEndsAt, request.claimedUntil);
    const version = await this.#state.set(IDEMPOTENCY_NAMESPACE, stateKey, claim, {
      expectedVersion,
      expiresAt,
    });
    if (version === null) return null;
    return current === null
      ? { kind: "owner", claim, version }
      : { kind: "owner", claim, version, previous: current };
  }

  /**
   * Move a claim held at `version` to `done`, `unknown` or `released`. Returns the new version, or null
   * when the claim changed meanwhile (it is then left as it is). The settled claim lasts until the end of
   * the key's window. `held` is the claim as written at `version` (what `acquire` returned): given, it is
   * not read again, since the compare-and-set on `version` already proves it is still the stored one.
   */
  async settle(
    scope: IdempotencyScope,
    version: string,
    outcome:
      | { state: "done"; response: StoredSendResponse; messageId?: string }
      | { state: "unknown" }
      | { state: "released" },
    held?: IdempotencyClaim,
  ): Promise<string | null> {
    const stateKey = IdempotencyClaims.keyOf(scope);
    let claim = held;
    let expiresAt: number | undefined = held?.windowEndsAt;
    if (claim === undefined) {
      const entry = await this.#state.get<IdempotencyClaim>(IDEMPOTENCY_NAMESPACE, stateKey);
      if (entry === null || entry.version !== version) return null;
      claim = entry.value;
      expiresAt = entry.value.windowEndsAt ?? entry.expiresAt;
    }
    const next: IdempotencyClaim = { ...claim, state: outcome.state, updatedAt: this.#now() };
    if (outcome.state === "done") {
      next.response = outcome.response;
      if (outcome.messageId !== undefined) next.messageId = outcome.messageId;
    }
    const options = { expectedVersion: version, expiresAt };
    try {
      return await this.#state.set(IDEMPOTENCY_NAMESPACE, stateKey, next, options);
    } catch (error) {
      // A body over the state's size limit: keep what identifies the message, so a replay still has it.
      if (!(error instanceof RangeError) || outcome.state !== "done") throw error;
      next.response = { status: outcome.response.status, body: trimmedBody(outcome.response.body) };
      return await this.#state.set(IDEMPOTENCY_NAMESPACE, stateKey, next, options);
    }
  }
}

function trimmedBody(body: unknown): unknown {
  if (body === null || typeof body !== "object") return null;
  const { key, status, messageType, messageTimestamp } = body as Record<string, unknown>;
  return { key, status, messageType, messageTimestamp };
}
