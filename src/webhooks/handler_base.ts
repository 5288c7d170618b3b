import { WebhookException } from "../errors.ts";
import { normalizeWebhookEvent, WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS } from "./events/names.ts";
import type { WebhookPayloadDto } from "./payload.ts";

/**
 * Extend to handle webhooks: list the kinds in `protected events` (any spelling; empty means all) and
 * implement `handle` with its parameter type written out (TypeScript does not infer it from the base). A
 * handler that throws fails the webhook (500 in sync mode, a retry in queue mode).
 *
 * @example
 * ```ts
 * import { AbstractWebhookHandler, webhookProcessor, type WebhookPayloadDto } from "@gw/gateway";
 * class GreetOnMessage extends AbstractWebhookHandler {
 *   protected events = ["messages.upsert"];
 *   handle(payload: WebhookPayloadDto): void { console.log(payload.text); }
 * }
 * webhookProcessor().registerHandler(new GreetOnMessage());
 * ```
 */
export abstract class AbstractWebhookHandler {
  // `events` is not declared here so that subclasses need no `override` (`noImplicitOverride`).

  /** Handle one webhook whose kind is in `events`. */
  abstract handle(payload: WebhookPayloadDto): void | Promise<void>;

  /** The canonical kinds handled (empty = all); throws on a name that is not an event. */
  handledEvents(): string[] {
    return normalizeKinds((this as { events?: readonly string[] }).events ?? []);
  }

  /** Whether this handler handles `kind` (any spelling). */
  handles(kind: string): boolean {
    const kinds = this.handledEvents();
    return kinds.length === 0 || kinds.includes(normalizeWebhookEvent(kind) ?? "");
  }
}

/** Canonical kinds of event names in any spelling; a misspelt name throws a `WebhookException`. */
export function normalizeKinds(names: readonly string[]): string[] {
  if (!Array.isArray(names)) {
    throw new WebhookException("Cannot register webhook handler: events must be an array of strings");
  }
  const out: string[] = [];
  for (const name of names) {
    const kind = typeof name === "string" ? normalizeWebhookEvent(name) : null;
    if (kind === null || !Object.hasOwn(WEBHOOK_EVENTS, kind)) {
      throw new WebhookException(
        `Cannot register webhook handler: ${JSON.stringify(String(name))} is not an event name; ` +
          `valid names: ${WEBHOOK_EVENT_NAMES.join(", ")}`,
      );
    }
    if (!out.includes(kind)) out.push(kind);
  }
  return out;
}
