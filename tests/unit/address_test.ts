import { deepStrictEqual, rejects, strictEqual, throws } from "node:assert/strict";
import { LidDirectory, lidPairsOf } from "../../src/address/lid_directory.ts";
import { normalizePhone, phoneMatchKey, phoneVariants } from "../../src/address/phone.ts";
import { parseRecipient } from "../../src/address/recipient.ts";
import { resolveSender } from "../../src/address/sender.ts";
import { ValidationException } from "../../src/errors.ts";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { SENDER_FIXTURES } from "../fixtures/lid_payloads.ts";
import { runDeliveryWorker } from "../helpers/run_worker.ts";

function messagesOf(envelope: Record<string, unknown>): unknown[] {
  return Array.isArray(envelope.data) ? envelope.data : [envelope.data];
}

for (const fixture of SENDER_FIXTURES) {
  Deno.test(`resolveSender: ${fixture.name}`, () => {
    deepStrictEqual(messagesOf(fixture.envelope).map((message) => resolveSender(message)), fixture.expected);
    if (!Array.isArray(fixture.envelope.data)) {
      // The envelope, the payload object and its getters all answer the same.
      const payload = WebhookPayloadDto.from(fixture.envelope)!;
      const [expected] = fixture.expected;
      deepStrictEqual(resolveSender(fixture.envelope), expected);
      deepStrictEqual(payload.resolvedSender, expected);
      strictEqual(payload.chatJid, expected.replyTo);
      strictEqual(payload.senderLid, expected.lid);
      strictEqual(payload.senderPhone, expected.phone);
    }
  });
}

Deno.test("resolveSender: pn addressing with the LID as remoteJidAlt, device suffixes, and no key", () => {
  deepStrictEqual(
    resolveSender({
      key: { remoteJid: "5511999998888:12@s.whatsapp.net", remoteJidAlt: "123456789012345:3@lid", id: "A" },
    }),
    { replyTo: "5511999998888@s.whatsapp.net", lid: "123456789012345@lid", phone: "5511999998888" },
  );
  strictEqual(resolveSender({ event: "connection.update", data: { state: "open" } }), null);
  strictEqual(resolveSender("5511999998888"), null);
});

Deno.test("lidPairsOf: messages, contact rows, chats and a history-sync object", () => {
  deepStrictEqual(lidPairsOf(SENDER_FIXTURES[4].envelope), [
    { lid: "987654321098765@lid", phone: "5521988887777" },
  ]);
  deepStrictEqual(
    lidPairsOf({
      event: "contacts.upsert",
      data: [
        { id: "5511999998888@s.whatsapp.net", lid: "123456789012345@lid", name: "Ana" },
        { remoteJid: "5511000000001@s.whatsapp.net", pushName: "no lid" },
      ],
    }),
    [{ lid: "123456789012345@lid", phone: "5511999998888" }],
  );
  deepStrictEqual(
    lidPairsOf({
      event: "messaging-history.set",
      data: {
        chats: [{ id: "111111111111111@lid", pnJid: "x", remoteJidAlt: "5531977776666@s.whatsapp.net" }],
        contacts: [{ id: "222222222222222@lid", phoneNumber: "5541966665555@s.whatsapp.net" }],
        messages: [],
      },
    }),
    [
      { lid: "222222222222222@lid", phone: "5541966665555" },
      { lid: "111111111111111@lid", phone: "5531977776666" },
    ],
  );
});

Deno.test("LidDirectory: learns once, answers both ways, and fills a LID-only sender", async () => {
  const directory = new LidDirectory(new MemoryStore());
  strictEqual(await directory.learn(WebhookPayloadDto.from(SENDER_FIXTURES[1].envelope)!), 1);
  strictEqual(await directory.learn(WebhookPayloadDto.from(SENDER_FIXTURES[0].envelope)!), 0);
  strictEqual(await directory.toPhone("123456789012345@lid"), "5511999998888");
  strictEqual(await directory.toPhone("123456789012345"), "5511999998888");
  strictEqual(await directory.toLid("+55 11 99999-8888"), "123456789012345@lid");
  strictEqual(await directory.toLid("5511999998888@s.whatsapp.net"), "123456789012345@lid");
  strictEqual(await directory.toPhone("999@lid"), undefined);
  deepStrictEqual(await directory.resolve(SENDER_FIXTURES[2].envelope), {
    replyTo: "123456789012345@lid",
    lid: "123456789012345@lid",
    phone: "5511999998888",
  });
  await rejects(() => directory.toPhone("5511999998888@s.whatsapp.net"), TypeError);
});

Deno.test("WebhookProcessor with a store feeds its LID directory from contacts and messages", async () => {
  const processor = new WebhookProcessor({ store: new MemoryStore(), log: false });
  await processor.process(
    WebhookPayloadDto.from({
      event: "contacts.update",
      instance: "sales",
      data: [{ remoteJid: "5531977776666@s.whatsapp.net", lid: "111111111111111@lid" }],
    })!,
  );
  strictEqual(await processor.lidDirectory?.toPhone("111111111111111@lid"), "5531977776666");
});

Deno.test("LidDirectory: a pair learned in another process resolves a later LID-only event on the same KV file", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/gateway.kv`;
  try {
    // Process 1 receives the 2.3.6 message that shows both forms.
    strictEqual(await runDeliveryWorker("learn", path, "1"), "done");
    // This process receives a message that carries only the LID.
    const kv = await Deno.openKv(path);
    try {
      const processor = new WebhookProcessor({ store: new KvStore(kv), log: false });
      const seen: (string | undefined)[] = [];
      processor.on("messages.upsert", async (payload) => {
        seen.push((await processor.lidDirectory!.resolve(payload))?.phone);
      });
      await processor.process(WebhookPayloadDto.from(SENDER_FIXTURES[2].envelope)!);
      deepStrictEqual(seen, ["5511999998888"]);
      strictEqual(await new LidDirectory(new KvStore(kv)).toLid("5511999998888"), "123456789012345@lid");
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("normalizePhone: international, national with defaultCountry, and refusals before any request", () => {
  const table: [string, string | undefined, string][] = [
    ["+55 (11) 99999-8888", undefined, "5511999998888"],
    ["0055 11 99999 8888", undefined, "5511999998888"],
    ["5511999998888", undefined, "5511999998888"],
    ["(11) 99999-8888", "BR", "5511999998888"],
    ["5511999998888", "BR", "5511999998888"],
    ["011 99999 8888", "55", "5511999998888"],
    ["020 7946 0958", "GB", "442079460958"],
    ["(415) 555-0100", "US", "14155550100"],
    ["+1 415 555 0100", undefined, "14155550100"],
    ["55 1234 5678", "MX", "525512345678"],
    ["+54 9 11 2345 6789", undefined, "5491123456789"],
  ];
  for (const [input, defaultCountry, expected] of table) {
    strictEqual(normalizePhone(input, { defaultCountry }), expected, `${input} (${defaultCountry})`);
  }
  const refused: [string, string | undefined, RegExp][] = [
    ["11999998888", undefined, /North American/],
    ["011 99999 8888", undefined, /national form/],
    ["99998888", undefined, /too short/],
    ["+55 11 9999", undefined, /Brazilian number/],
    ["+44 2079", undefined, /8 to 15 digits/],
    ["5511999998888@s.whatsapp.net", undefined, /JID/],
    ["call me", undefined, /only digits/],
    ["99998888", "XX", /unknown defaultCountry/],
  ];
  for (const [input, defaultCountry, message] of refused) {
    throws(() => normalizePhone(input, { defaultCountry }), (error: unknown) => {
      return error instanceof ValidationException && message.test(error.message);
    }, input);
  }
});

Deno.test("phoneVariants and phoneMatchKey: BR 9th digit, MX 521/52, AR 549/54, and numbers without variants", () => {
  const table: [string, string[], string][] = [
    // BR mobile, with and without the 9th digit: one key.
    ["5511999998888", ["5511999998888", "551199998888"], "551199998888"],
    ["551199998888", ["551199998888", "5511999998888"], "551199998888"],
    ["5531988887777", ["5531988887777", "553188887777"], "553188887777"],
    // BR landline (subscriber 2-5): no 9th digit, no variant.
    ["551133334444", ["551133334444"], "551133334444"],
    // MX: 521 + 10 digits ↔ 52 + 10 digits.
    ["5215512345678", ["5215512345678", "525512345678"], "525512345678"],
    ["525512345678", ["525512345678", "5215512345678"], "525512345678"],
    // AR: 549 + 10 digits ↔ 54 + 10 digits.
    ["5491123456789", ["5491123456789", "541123456789"], "541123456789"],
    ["541123456789", ["541123456789", "5491123456789"], "541123456789"],
    // Elsewhere: the number alone.
    ["14155550100", ["14155550100"], "14155550100"],
    ["442079460958", ["442079460958"], "442079460958"],
  ];
  for (const [number, variants, key] of table) {
    deepStrictEqual(phoneVariants(number), variants, number);
    strictEqual(phoneMatchKey(number), key, number);
  }
  strictEqual(phoneMatchKey("5511999998888@s.whatsapp.net"), phoneMatchKey("+55 11 9999-8888"));
});

Deno.test("parseRecipient: every kind, device suffixes dropped, bad input refused", () => {
  deepStrictEqual(parseRecipient("+55 11 99999-8888"), {
    kind: "user",
    jid: "5511999998888@s.whatsapp.net",
    phone: "5511999998888",
  });
  deepStrictEqual(parseRecipient("5511999998888:7@s.whatsapp.net"), {
    kind: "user",
    jid: "5511999998888@s.whatsapp.net",
    phone: "5511999998888",
  });
  deepStrictEqual(parseRecipient("5511999998888@c.us").jid, "5511999998888@s.whatsapp.net");
  deepStrictEqual(parseRecipient("123456789012345:2@lid"), {
    kind: "lid",
    jid: "123456789012345@lid",
    lid: "123456789012345@lid",
  });
  deepStrictEqual(parseRecipient("120363025246125888@g.us"), {
    kind: "group",
    jid: "120363025246125888@g.us",
  });
  deepStrictEqual(parseRecipient("status@broadcast"), { kind: "broadcast", jid: "status@broadcast" });
  deepStrictEqual(parseRecipient("120363198765432101@newsletter"), {
    kind: "newsletter",
    jid: "120363198765432101@newsletter",
  });
  throws(() => parseRecipient("abc@example.com"), ValidationException);
  throws(() => parseRecipient("12345"), ValidationException);
});
