/**
 * The server's configuration event names (contract §5.3). Kept for existing imports: the table they come
 * from is `src/webhooks/events/names.ts`.
 *
 * @module
 */

export { WEBHOOK_CONFIG_EVENTS } from "./webhooks/events/names.ts";
