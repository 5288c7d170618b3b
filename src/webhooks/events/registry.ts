/**
 * The processor's one registry of what runs for a webhook: handlers (`on`, `onAny`, `registerHandler`) and
 * plug-ins (`use`: the log line, the `EventTarget` events, the store features). Plug-ins come first, then
 * handlers, each group in registration order.
 *
 * @module
 */

import type { WebhookPayloadDto } from "../payload.ts";
import { WEBHOOK_EVENTS } from "./names.ts";

/** One registration. */
export interface HandlerEntry {
  /** Canonical kinds it runs for, or null for every kind. */
  readonly kinds: readonly string[] | null;
  /** Called once per webhook of its kinds. */
  readonly run: (payload: WebhookPayloadDto) => unknown;
  /** What `removeHandler` matches: the function or object the application registered. */
  readonly owner: unknown;
  /**
   * A plug-in runs before every handler and its promise runs beside them (awaited before the webhook is
   * answered); a handler's promise is awaited before the next handler runs.
   */
  readonly plugin: boolean;
}

/** Registrations, with the list for each kind built once and kept until the registrations change. */
export class HandlerRegistry {
  #entries: HandlerEntry[] = [];
  #plugins = 0;
  #byKind = new Map<string, readonly HandlerEntry[]>();
  // The list for kinds the server does not send (only catch-alls apply); not cached per name, so that names
  // chosen by whoever sends webhooks cannot grow the cache.
  #unknownKind: readonly HandlerEntry[] | undefined;

  /** Add an entry: a plug-in after the other plug-ins, a handler after every entry. */
  add(entry: HandlerEntry): void {
    if (entry.plugin) this.#entries.splice(this.#plugins++, 0, entry);
    else this.#entries.push(entry);
    this.#changed();
  }

  /** Remove every entry of `owner`; returns whether there was one. */
  remove(owner: unknown): boolean {
    const kept = this.#entries.filter((entry) => entry.owner !== owner);
    if (kept.length === this.#entries.length) return false;
    this.#entries = kept;
    this.#plugins = kept.filter((entry) => entry.plugin).length;
    this.#changed();
    return true;
  }

  /** The entries to run for `kind`, in order. The array is not changed later: a dispatch may keep it. */
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

  /** How many handlers (not plug-ins) run for `kind`, or are registered without `kind`. */
  handlerCount(kind?: string): number {
    const entries = kind === undefined ? this.#entries : this.for(kind);
    let count = 0;
    for (const entry of entries) if (!entry.plugin) count++;
    return count;
  }

  #changed(): void {
    this.#byKind = new Map();
    this.#unknownKind = undefined;
  }
}
