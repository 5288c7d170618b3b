// The processor's dispatch cost: `processor.process` of one messages.upsert with one synchronous handler, against
// the same handler called from a bare async function (the baseline) in the same run.
// Run: deno bench --no-prompt -A --lock=tests/npm/deno.lock bench/webhook_dispatch_bench.ts
import { WebhookPayloadDto } from "../src/webhooks/payload.ts";
import { WebhookProcessor } from "../src/webhooks/processor.ts";
import { MessageReceived } from "../src/events.ts";

const payload = WebhookPayloadDto.from({
  event: "messages.upsert",
  instance: "sales",
  data: {
    key: { id: "3EB0", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hi" },
    messageType: "conversation",
  },
})!;

let seen = 0;
const handler = (p: WebhookPayloadDto) => {
  if (p.instance === "sales") seen++;
};
// The least a dispatcher does: call the handler, await it only when it returned a promise.
const bare = async (p: WebhookPayloadDto) => {
  const result: unknown = handler(p);
  if (result instanceof Promise) await result;
};
const byName = new WebhookProcessor({ log: false }).on("messages.upsert", handler);
const catchAll = new WebhookProcessor({ log: false }).onAny(handler);
const listened = new WebhookProcessor({ log: false }).on("messages.upsert", handler);
listened.events.addEventListener(MessageReceived.type, () => void seen++);

Deno.bench("bare async call of the handler (baseline)", { group: "dispatch", baseline: true }, async () => {
  await bare(payload);
});
Deno.bench('process: on("messages.upsert", sync handler)', { group: "dispatch" }, async () => {
  await byName.process(payload);
});
Deno.bench("process: onAny(sync handler)", { group: "dispatch" }, async () => {
  await catchAll.process(payload);
});
Deno.bench("process: sync handler + a MessageReceived listener", { group: "dispatch" }, async () => {
  await listened.process(payload);
});
