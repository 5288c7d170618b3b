// docs/webhooks.md, "Dedupe": "A redelivery that arrives while the first delivery is still being processed
// gets 409 with `Retry-After` (the server retries it), never "duplicate": the first may still fail"; the
// status table gives the header's value (`Retry-After: 5`). Shared by every engine's test (memory, Deno KV,
// the Cloudflare coordinator in workerd).
import { deepStrictEqual } from "node:assert/strict";
import type { WebhookDedupe } from "../../src/webhooks/dedupe.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { gate } from "./bot.ts";

const SECRET = "dedupe-redelivery-secret-0123456789abcdef";

/** What a client sees of an answer: status, `Retry-After`, body. */
async function seen(response: Response): Promise<[number, string | null, string]> {
  return [response.status, response.headers.get("retry-after"), await response.text()];
}

/**
 * A redelivery while the first delivery runs: 409, `Retry-After: 5`, never "duplicate"; the first then fails,
 * so the server's retry runs the handler again (200); a redelivery after that success is a duplicate.
 */
export async function redeliveryWhileProcessing(dedupe: WebhookDedupe): Promise<void> {
  const started = gate();
  const finish = gate();
  let runs = 0;
  const processor = new WebhookProcessor({ log: false }).onAny(async () => {
    runs++;
    if (runs > 1) return;
    started.open();
    await finish.promise;
    throw new Error("the first run fails");
  });
  const handler = createWebhookHandler({ signature: { secret: SECRET }, processor, dedupe, metrics: false });
  const body = JSON.stringify({ event: "messages.upsert", instance: "sales", data: { key: { id: "R1" } } });
  const post = async () =>
    handler(
      new Request("http://h/gateway/webhook/sales", {
        method: "POST",
        headers: await signWebhook({ body, secret: SECRET }),
        body,
      }),
    );
  const first = post();
  await started.promise;
  const during = await seen(await post());
  finish.open();
  const failed = (await first).status;
  const retried = await seen(await post());
  const after = await seen(await post());
  deepStrictEqual({ during, failed, retried, after, runs }, {
    during: [409, "5", '{"ok":false,"error":"Conflict: the same delivery is being processed"}'],
    failed: 500,
    retried: [200, null, '{"ok":true}'],
    after: [200, null, '{"ok":true,"duplicate":true}'],
    runs: 2,
  });
}
