/**
 * The base class of application webhook handlers.
 *
 * @module
 */

import { WebhookException } from "../errors.ts";
import { normalizeWebhookEvent, WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS } from "./events/names.ts";
import type { WebhookPayloadDto } from "./payload.ts";

/**
 * Extend to handle webhooks: list the event kinds in a `protected events` field (any spelling:
 * `messages.upsert`, `MESSAGES_UPSERT`, `messages-upsert`; absent or empty means every event) and implement
 * `handle(payload: WebhookPayloadDto)`. The parameter needs its type written out: TypeScript does not type a
 * subclass method's parameters from its base class, and strict mode refuses an implicit `any`. Register with
 * `WebhookProcessor.registerHandler`; handlers run in registration order, and a handler that throws makes
 * the webhook fail (500 in sync mode, so the server retries; a retry in queue mode).
 *
 * @example
 * ```ts
 * import { AbstractWebhookHandler, webhookProcessor, type WebhookPayloadDto } from "@gw/gateway";
 *
 * class GreetOnMessage extends AbstractWebhookHandler {
 *   protected events = ["messages.upsert"];
 *   handle(payload: WebhookPayloadDto): void {
 *     if (payload.isInboundMessage) console.log(`${payload.senderJid}: ${payload.text}`);
 *   }
 * }
 * webhookProcessor().registerHandler(new GreetOnMessage());
 * ```
 */
export abstract class AbstractWebhookHandler {
  // `events` is deliberately not declared here: a subclass then writes `protected events = [...]` as the
  // specification shows, without the `override` keyword that Deno's default `noImplicitOverride` would
  // otherwise demand. `handledEvents()` checks its shape at run time.

  /**
   * Handle one webhook whose kind is in `events`.
   *
   * @example
   * ```ts
   * import { AbstractWebhookHandler, type WebhookPayloadDto } from "@gw/gateway";
   * class Log extends AbstractWebhookHandler {
   *   handle(payload: WebhookPayloadDto): void {
   *     console.log(payload.event);
   *   }
   * }
   * ```
   */
  abstract handle(payload: WebhookPayloadDto): void | Promise<void>;

  /**
   * The canonical kinds this handler handles (empty = all). Throws when a name is not one of the server's
   * event names (the message lists them).
   *
   * @example
   * ```ts
   * import { AbstractWebhookHandler } from "@gw/gateway";
   * class OnQr extends AbstractWebhookHandler {
   *   protected events = ["qrcode.updated"];
   *   handle(): void {}
   * }
   * new OnQr().handledEvents(); // ["QRCODE_UPDATED"]
   * ```
   */
  handledEvents(): string[] {
    return normalizeKinds((this as { events?: readonly string[] }).events ?? []);
  }

  /**
   * Whether this handler handles `kind` (any spelling).
   *
   * @example
   * ```ts
   * import { AbstractWebhookHandler } from "@gw/gateway";
   * class OnQr extends AbstractWebhookHandler {
   *   protected events = ["qrcode.updated"];
   *   handle(): void {}
   * }
   * new OnQr().handles("QRCODE_UPDATED"); // true
   * ```
   */
  handles(kind: string): boolean {
    const kinds = this.handledEvents();
    return kinds.length === 0 || kinds.includes(normalizeWebhookEvent(kind) ?? "");
  }
}

/**
 * Canonical kinds of a list of event names in any spelling; throws a `WebhookException` listing the valid
 * names when one is not an event the server knows (a misspelt name would otherwise never match).
 */
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
