/**
 * What a plug-in of the processor is.
 *
 * @module
 */

import type { WebhookPayloadDto } from "../payload.ts";
import type { WebhookEventSpelling } from "./names.ts";

/**
 * Something that observes webhooks beside the application's handlers: the log line, the store features
 * (inbound records, `@lid` learning, message status, instance health), the `EventTarget` events. Registered
 * with `WebhookProcessor.use`; plug-ins run before every handler, in registration order. A promise returned
 * by `observe` runs beside the handlers (it does not hold them up) and is awaited before the webhook is
 * answered; a throw or a rejection fails the webhook (500 in sync mode, so the server retries; a retry in
 * queue mode), so nothing a plug-in records is silently lost.
 *
 * @example
 * ```ts
 * import { type WebhookPayloadDto, type WebhookPlugin, WebhookProcessor } from "@gw/gateway/webhooks";
 * const counts = new Map<string, number>();
 * const countByInstance: WebhookPlugin = {
 *   events: ["messages.upsert"],
 *   observe(payload: WebhookPayloadDto) {
 *     counts.set(payload.instance, (counts.get(payload.instance) ?? 0) + 1);
 *   },
 * };
 * new WebhookProcessor().use(countByInstance);
 * ```
 */
export interface WebhookPlugin {
  /** The events it observes, in any spelling; absent or empty: every webhook. */
  readonly events?: readonly WebhookEventSpelling[];
  /** Observe one webhook. */
  observe(payload: WebhookPayloadDto): unknown;
}
