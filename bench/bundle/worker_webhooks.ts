// A Worker that only receives webhooks, importing the receiver entry point (`@gw/gateway/webhooks`).
import { handleWebhook, webhookProcessor } from "../../src/webhooks/mod.ts";

webhookProcessor().on("messages.upsert", (payload) => console.log(payload.senderJid, payload.text));

export default { fetch: handleWebhook };
