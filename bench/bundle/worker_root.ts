// The same Worker importing the root entry point (`@gw/gateway`).
import { handleWebhook, webhookProcessor } from "../../mod.ts";

webhookProcessor().on("messages.upsert", (payload) => console.log(payload.senderJid, payload.text));

export default { fetch: handleWebhook };
