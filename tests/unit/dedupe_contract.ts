// Behaviour every WebhookDedupe engine shares (memory, Deno KV, Redis): each engine's test file runs it.
import { strictEqual } from "node:assert/strict";
import type { WebhookDedupe } from "../../src/webhooks/dedupe.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";

/** The time the lifecycle starts at. */
export const T0 = 1_760_000_000_000;

/** Claim, lease, complete, window and release, for a dedupe built with `windowSeconds: 60, leaseSeconds: 10`. */
export async function lifecycle(dedupe: WebhookDedupe): Promise<void> {
  strictEqual(await dedupe.claim("a", T0), true);
  // In progress: a concurrent redelivery is a duplicate.
  strictEqual(await dedupe.claim("a", T0 + 1000), false);
  // The lease (10 s here) ran out without completion: another delivery may take over.
  strictEqual(await dedupe.claim("a", T0 + 10_001), true);
  await dedupe.complete("a", T0 + 10_001);
  strictEqual(await dedupe.claim("a", T0 + 20_000), false);
  strictEqual(await dedupe.claim("a", T0 + 10_001 + 59_999), false);
  // The window (60 s) ran out: a new delivery is processed again.
  strictEqual(await dedupe.claim("a", T0 + 10_001 + 60_000), true);
  await dedupe.release("a");
  strictEqual(await dedupe.claim("a", T0 + 70_002), true);
  strictEqual(await dedupe.claim("b", T0), true);
}

/** 50 identical deliveries at once through the handler: the handlers run once, 49 are asked to retry. */
export async function concurrentDeliveries(dedupe: WebhookDedupe): Promise<void> {
  let runs = 0;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const processor = new WebhookProcessor({ log: false }).onAny(async () => {
    runs++;
    await gate;
  });
  const handler = createWebhookHandler({
    signature: { secret: "dedupe-secret" },
    processor,
    dedupe,
    metrics: false,
  });
  const body = JSON.stringify({ event: "messages.upsert", instance: "sales", data: { key: { id: "X" } } });
  const headers = await signWebhook({ body, secret: "dedupe-secret" });
  const responses = Array.from(
    { length: 50 },
    () => handler(new Request("http://h/gateway/webhook/sales", { method: "POST", headers, body })),
  );
  // Let every request reach its claim before the one that won finishes.
  const settled: Response[] = [];
  let allDuplicatesIn!: () => void;
  const duplicatesIn = new Promise<void>((resolve) => allDuplicatesIn = resolve);
  const duplicates = responses.map(async (promise) => {
    const response = await promise;
    settled.push(response);
    if (settled.length === 49) allDuplicatesIn();
  });
  // The winner is parked in its handler until the 49 others have been answered.
  await duplicatesIn;
  strictEqual(runs, 1);
  open();
  await Promise.all(duplicates);
  const bodies = await Promise.all(
    settled.map(async (response) => `${response.status} ${await response.text()}`),
  );
  strictEqual(runs, 1);
  strictEqual(bodies.filter((text) => text === '200 {"ok":true}').length, 1);
  // While the first delivery runs it may still fail: the others are asked to come back (the server retries
  // a 409), never told "duplicate", so a failure of the first cannot lose the event.
  strictEqual(
    bodies.filter((text) =>
      text === '409 {"ok":false,"error":"Conflict: the same delivery is being processed"}'
    )
      .length,
    49,
  );
  const again = await handler(
    new Request("http://h/gateway/webhook/sales", { method: "POST", headers, body }),
  );
  strictEqual(`${again.status} ${await again.text()}`, '200 {"ok":true,"duplicate":true}');
  strictEqual(runs, 1);
}
