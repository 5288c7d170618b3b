/**
 * Event names of the reference server: UPPER_SNAKE in configuration, dotted in payloads (contract §5.3).
 *
 * @module
 */

import { WEBHOOK_CONFIG_EVENTS } from "../../webhooks/events/names.ts";

/**
 * The per-instance event enum accepted by `/webhook/set`, in the server's order.
 *
 * @example
 * ```ts
 * import { INSTANCE_EVENTS } from "@gw/gateway/testing";
 * console.log(INSTANCE_EVENTS.includes("SEND_MESSAGE")); // true
 * ```
 */
export const INSTANCE_EVENTS: readonly string[] = Object.keys(WEBHOOK_CONFIG_EVENTS);

/** `messages.upsert` → `MESSAGES_UPSERT`, the server's `event.replace(/[.-]/g, "_").toUpperCase()`. */
export function eventConfigName(event: string): string {
  return event.replace(/[.-]/g, "_").toUpperCase();
}

/** `messages.upsert` → `messages-upsert`, the byEvents URL suffix. */
export function eventKebab(event: string): string {
  return eventConfigName(event).replace(/_/g, "-").toLowerCase();
}
