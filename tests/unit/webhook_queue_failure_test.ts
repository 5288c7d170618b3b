// Nothing silent in queue mode either: the receiver answered 202, so a handler that throws in the worker is
// the only place the failure shows. Its retry and its dead letter each print a line on stderr naming the
// event, the instance and the error, without LogTape configured (they went to LogTape only).
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { settleWebhookJob } from "../../src/webhooks/queue/settler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";

const BODY = new TextEncoder().encode(
  '{"event":"messages.upsert","instance":"sales","apikey":"B6D711FCDE4D4FD5936544120E713976","data":{}}',
);

Deno.test("queue worker: a handler that throws prints one stderr line per retry and per dead letter", async () => {
  const processor = new WebhookProcessor({ log: false }).onAny((payload) => {
    throw new Error(`order table locked (${payload.apikey})`);
  });
  const settler = { retry: () => Promise.resolve(), deadLetter: () => Promise.resolve() };
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    let clock = 1_760_000_000_000;
    const options = { maxAttempts: 3, now: () => clock };
    const job = (attempt: number) => ({
      type: "gateway.webhook.process" as const,
      id: `job-${attempt}`,
      instance: "sales",
      attempt,
      receivedAt: clock,
    });
    strictEqual(await settleWebhookJob(job(0), BODY, processor, options, settler), "retried");
    clock += 60_000;
    strictEqual(await settleWebhookJob(job(2), BODY, processor, options, settler), "dead_lettered");
  } finally {
    console.error = original;
  }
  deepStrictEqual(lines, [
    '[gateway] Webhook MESSAGES_UPSERT for instance "sales" failed in the queue worker (attempt 1 of 3, ' +
    "retried): Error: order table locked ([redacted])",
    '[gateway] Webhook MESSAGES_UPSERT for instance "sales" failed in the queue worker (attempt 3 of 3, ' +
    "dead-lettered): Error: order table locked ([redacted])",
  ]);
});

Deno.test("queue worker: the rate limit of failure lines is each processor's, not the process's", async () => {
  const failing = () =>
    new WebhookProcessor({ log: false }).onAny(() => {
      throw new Error("handler down");
    });
  const settler = { retry: () => Promise.resolve(), deadLetter: () => Promise.resolve() };
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    // The same clock (the default one, as most callers pass), two processors (two workers, two tests).
    const options = { maxAttempts: 3, now: Date.now };
    const job = {
      type: "gateway.webhook.process" as const,
      id: "j",
      instance: "sales",
      attempt: 0,
      receivedAt: 1,
    };
    strictEqual(await settleWebhookJob(job, BODY, failing(), options, settler), "retried");
    strictEqual(await settleWebhookJob(job, BODY, failing(), options, settler), "retried");
  } finally {
    console.error = original;
  }
  strictEqual(lines.length, 2, lines.join("\n"));
});
