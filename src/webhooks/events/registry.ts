import type { WebhookPayloadDto } from "../payload.ts";
import { WEBHOOK_EVENTS } from "./names.ts";

/** One registration. */
export interface HandlerEntry {
  /** Canonical kinds it runs for, or null for every kind. */
  readonly kinds: readonly string[] | null;
  /** Called once per webhook of its kinds. */
  readonly run: (payload: WebhookPayloadDto) => unknown;
  /** What `removeHandler` matches. */
  readonly owner: unknown;
}

/** The processor's handlers in registration order; each kind's list is cached until they change. */
export class HandlerRegistry {
  #entries: HandlerEntry[] = [];
  #byKind = new Map<string, readonly HandlerEntry[]>();
  // For unknown kinds: one list, so that senders cannot grow the cache.
  #unknownKind: readonly HandlerEntry[] | undefined;

  /** Add an entry after every entry. */
  add(entry: HandlerEntry): void {
    this.#entries.push(entry);
    this.#changed();
  }

  /** Remove every entry of `owner`; returns whether there was one. */
  remove(owner: unknown): boolean {
    const kept = this.#entries.filter((entry) => entry.owner !== owner);
    if (kept.length === this.#entries.length) return false;
    this.#entries = kept;
    this.#changed();
    return true;
  }

  /** The entries to run for `kind`, in order (never changed later: a dispatch may keep it). */
  for(kind: string): readonly HandlerEntry[] {
    const cached = this.#byKind.get(kind);
    if (cached !== undefined) return cached;
    if (!Object.hasOwn(WEBHOOK_EVENTS, kind)) {
      return this.#unknownKind ??= this.#entries.filter((entry) => entry.kinds === null);
    }
    const list = this.#entries.filter((entry) => entry.kinds === null || entry.kinds.includes(kind));
    this.#byKind.set(kind, list);
    return list;
  }

  /** How many handlers run for `kind`, or are registered without `kind`. */
  handlerCount(kind?: string): number {
    return (kind === undefined ? this.#entries : this.for(kind)).length;
  }

  #changed(): void {
    this.#byKind = new Map();
    this.#unknownKind = undefined;
  }
}
