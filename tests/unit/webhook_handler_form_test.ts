// The handler form the specification shows compiles under this project's compiler settings (Deno's strict
// defaults, noImplicitOverride included) and works: `protected events = [...]` needs no `override`. The one
// addition strict mode needs is the parameter's type, `handle(payload: WebhookPayloadDto)` (docs/webhooks.md says
// why). This file is type-checked by `deno task check` and `deno test`.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { AbstractWebhookHandler, WebhookPayloadDto, WebhookProcessor } from "../../mod.ts";

class MessagesUpsertHandler extends AbstractWebhookHandler {
  protected events = ["MESSAGES_UPSERT"];
  readonly texts: string[] = [];

  handle(payload: WebhookPayloadDto) {
    this.texts.push(payload.text ?? "");
  }
}

class EveryEventHandler extends AbstractWebhookHandler {
  readonly kinds: string[] = [];

  handle(payload: WebhookPayloadDto) {
    this.kinds.push(payload.event);
  }
}

function webhook(event: string, data: Record<string, unknown>): WebhookPayloadDto {
  const payload = WebhookPayloadDto.from({ event, instance: "sales", data });
  if (payload === null) throw new Error(`not a webhook: ${event}`);
  return payload;
}

Deno.test("the specification's handler form: protected events = [...] and handle(payload)", async () => {
  const upserts = new MessagesUpsertHandler();
  const all = new EveryEventHandler();
  deepStrictEqual(upserts.handledEvents(), ["MESSAGES_UPSERT"]);
  deepStrictEqual(all.handledEvents(), []);
  const processor = new WebhookProcessor({ log: false }).registerHandler(upserts).registerHandler(all);
  await processor.process(webhook("messages.upsert", {
    key: { id: "M1", remoteJid: "5511999999999@s.whatsapp.net", fromMe: false },
    message: { conversation: "hello" },
    messageType: "conversation",
  }));
  await processor.process(webhook("connection.update", { state: "open" }));
  deepStrictEqual(upserts.texts, ["hello"]);
  deepStrictEqual(all.kinds, ["MESSAGES_UPSERT", "CONNECTION_UPDATE"]);
  strictEqual(upserts.handles("messages-upsert"), true);
  strictEqual(upserts.handles("connection.update"), false);
});
