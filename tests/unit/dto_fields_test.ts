import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  CallOfferDto,
  CreateGroupDto,
  CreateInstanceDto,
  CreateTemplateDto,
  PrivacySettingsDto,
  ProxyDto,
  SendAudioMessageDto,
  SendButtonsMessageDto,
  SendContactMessageDto,
  SendListMessageDto,
  SendLocationMessageDto,
  SendMediaMessageDto,
  SendPollMessageDto,
  SendPtvMessageDto,
  SendReactionMessageDto,
  SendStatusMessageDto,
  SendStickerMessageDto,
  SendTemplateMessageDto,
  SendTextMessageDto,
  SettingsDto,
  WebhookConfigDto,
} from "../../mod.ts";
import { type RequestBody, RequestDto } from "../../src/resources/mod.ts";
import * as root from "../../mod.ts";

const PHONE = "+55 (11) 99999-9999";
const NUMBER = "5511999999999";

/** A request object with its name and the input it was built from. */
function request<I extends object>(
  type: { name: string; from(input: I): RequestDto },
  input: I,
): [string, RequestDto, I] {
  return [type.name, type.from(input), input];
}

// One valid request object of every kind, each built from input that the request object normalizes.
const EVERY_REQUEST: readonly [string, RequestDto, object][] = [
  request(SendTextMessageDto, {
    number: PHONE,
    text: "Hi",
    delay: 1200,
    linkPreview: false,
    mentionsEveryOne: false,
    mentioned: ["5511988887777"],
    quoted: { key: { id: "3EB0" } },
  }),
  request(SendMediaMessageDto, { number: PHONE, mediatype: "image", media: "https://e.x/a.png" }),
  request(SendAudioMessageDto, { number: PHONE, audio: "https://e.x/a.ogg" }),
  request(SendPtvMessageDto, { number: PHONE, video: "https://e.x/v.mp4" }),
  request(SendStickerMessageDto, { number: PHONE, sticker: "https://e.x/s.webp" }),
  request(SendStatusMessageDto, {
    type: "text",
    content: "Open",
    backgroundColor: "#008000",
    font: 1,
    allContacts: true,
  }),
  request(SendLocationMessageDto, { number: PHONE, latitude: -23.55, longitude: -46.63 }),
  request(SendContactMessageDto, {
    number: PHONE,
    contact: [{ fullName: "Ana", phoneNumber: "+55 11 98888-7777" }],
  }),
  request(SendReactionMessageDto, {
    key: { id: "3EB0", remoteJid: `${NUMBER}@s.whatsapp.net`, fromMe: false },
    reaction: "👍",
  }),
  request(SendPollMessageDto, { number: PHONE, name: "Lunch?", values: ["Pizza", "Sushi"] }),
  request(SendListMessageDto, {
    number: PHONE,
    title: "Menu",
    footerText: "Thanks",
    buttonText: "Open",
    sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
  }),
  request(SendButtonsMessageDto, {
    number: PHONE,
    title: "Pick",
    buttons: [{ type: "reply", displayText: "Yes", id: "y" }],
  }),
  request(SendTemplateMessageDto, { number: PHONE, name: "hello_world", language: "en_US" }),
  request(CreateInstanceDto, { instanceName: " sales ", qrcode: true }),
  request(CreateGroupDto, { subject: "Team", participants: ["+55 11 98888-7777"] }),
  request(CreateTemplateDto, {
    name: "order",
    category: "UTILITY",
    language: "en_US",
    components: [{ type: "BODY", text: "Hi" }],
  }),
  request(CallOfferDto, { number: PHONE, callDuration: 5 }),
  request(ProxyDto, { host: "proxy.example.com", port: 3128, protocol: "http" }),
  request(SettingsDto, {
    rejectCall: false,
    groupsIgnore: true,
    alwaysOnline: true,
    readMessages: false,
    readStatus: false,
    syncFullHistory: false,
  }),
  request(PrivacySettingsDto, {
    readreceipts: "all",
    profile: "contacts",
    status: "contacts",
    online: "all",
    last: "none",
    groupadd: "contacts",
  }),
  request(WebhookConfigDto, {
    url: "https://example.com/hook",
    enabled: true,
    events: ["messages.upsert"],
    byEvents: false,
    base64: true,
    headers: { jwt_key: "secret" },
  }),
];

Deno.test("every request object exposes each body field as a readonly property equal to the sent value", () => {
  strictEqual(EVERY_REQUEST.length, 21);
  for (const [name, dto] of EVERY_REQUEST) {
    const body = dto.toJSON() as Record<string, unknown>;
    ok(Object.keys(body).length > 0, name);
    for (const [field, value] of Object.entries(body)) {
      deepStrictEqual((dto as unknown as Record<string, unknown>)[field], value, `${name}.${field}`);
      throws(
        () => {
          (dto as unknown as Record<string, unknown>)[field] = "changed";
        },
        TypeError,
        `${name}.${field} must be readonly`,
      );
    }
    deepStrictEqual(Object.keys(dto), Object.keys(body), name);
  }
});

Deno.test("every exported request object is walked, and reads back every field it was built from", () => {
  const exported = Object.entries(root)
    .filter(([, value]) => typeof value === "function" && value.prototype instanceof RequestDto)
    .map(([name]) => name);
  deepStrictEqual(EVERY_REQUEST.map(([name]) => name).sort(), exported.sort());
  for (const [name, dto, input] of EVERY_REQUEST) {
    const sent = dto.toJSON() as Record<string, unknown>;
    // WebhookConfigDto sends its settings wrapped ({ webhook: {...} }) and reads each one from there.
    const fields = (name === "WebhookConfigDto" ? sent.webhook : sent) as Record<string, unknown>;
    const view = dto as unknown as Record<string, unknown>;
    for (const field of Object.keys(input)) {
      ok(view[field] !== undefined, `${name}.${field} is undefined`);
      deepStrictEqual(view[field], fields[field], `${name}.${field}`);
      throws(() => view[field] = "changed", TypeError, `${name}.${field} must be readonly`);
    }
  }
  const hook = WebhookConfigDto.from({ url: "https://e.x/h", events: ["messages.upsert"] });
  const events: readonly string[] = hook.events;
  const url: string = hook.url;
  deepStrictEqual(
    [url, events, hook.enabled, hook.byEvents, hook.base64, hook.headers],
    ["https://e.x/h", ["MESSAGES_UPSERT"], true, false, false, {}],
  );
  // What is read from the body is not a body field: the sent type stays the server's wrapped body.
  const sent: RequestBody<WebhookConfigDto> = hook.toJSON();
  // @ts-expect-error: `url` is read from `webhook`, not sent at the top level
  strictEqual(sent.url, undefined);
  deepStrictEqual(Object.keys(sent), ["webhook"]);
});

Deno.test("the properties are the normalized values, typed: .number, .webhook.events, .port", () => {
  const text = SendTextMessageDto.from({ number: PHONE, text: "Hello" });
  const number: string = text.number;
  strictEqual(number, NUMBER);
  strictEqual(text.text, "Hello");
  strictEqual(text.body.number, NUMBER);
  strictEqual(SendLocationMessageDto.from({ number: PHONE, latitude: 1, longitude: 2 }).name, "");
  strictEqual(SendPollMessageDto.from({ number: PHONE, name: "Q", values: ["a", "b"] }).selectableCount, 1);
  const proxy = ProxyDto.from({ host: "proxy.example.com", port: 3128, protocol: "http" });
  const port: string = proxy.port;
  strictEqual(port, "3128");
  strictEqual(proxy.enabled, true);
  deepStrictEqual(
    WebhookConfigDto.from({ url: "https://e.x/h", events: ["messages.upsert"] }).webhook.events,
    [
      "MESSAGES_UPSERT",
    ],
  );
  strictEqual(CreateInstanceDto.from({ instanceName: " sales " }).instanceName, "sales");
  const body: RequestBody<SendTextMessageDto> = text.toJSON();
  body.text = "a copy, not the request";
  strictEqual(text.text, "Hello");
});
