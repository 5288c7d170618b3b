/**
 * The library's own webhook plug-ins, by the names they had as `EventTarget` listeners.
 *
 * @module
 */

export { LogWebhookEvent } from "./plugins/log.ts";
export { ProcessIncomingMessage } from "./plugins/inbound_records.ts";
export { LearnFromWebhook } from "./plugins/learn.ts";
