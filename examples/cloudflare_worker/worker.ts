/**
 * A Cloudflare Worker receiving the gateway server's webhooks.
 *
 * Configuration comes from the Worker's `env` bindings (see wrangler.toml): GATEWAY_WEBHOOK_SECRET as a
 * secret (`wrangler secret put GATEWAY_WEBHOOK_SECRET`), the rest as vars. With GATEWAY_WEBHOOK_QUEUE=true
 * the handler answers 202 and processes in `ctx.waitUntil`.
 */

import { handleWebhook, webhookProcessor } from "../../mod.ts";

/** The last webhooks handled, so that the example can show them at GET /last. */
const handled: { event: string; instance: string; sender?: string; text?: string }[] = [];

webhookProcessor().onAny((payload) => {
  handled.push({
    event: payload.event,
    instance: payload.instance,
    sender: payload.senderJid,
    text: payload.text,
  });
  if (handled.length > 20) handled.shift();
});

export default {
  fetch(request: Request, env: Record<string, unknown>, ctx: { waitUntil(promise: Promise<unknown>): void }) {
    if (new URL(request.url).pathname === "/last") return Response.json(handled);
    return handleWebhook(request, env, ctx);
  },
};
