import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  CallOfferDto,
  CreateGroupDto,
  CreateInstanceDto,
  CreateTemplateDto,
  PrivacySettingsDto,
  ProxyDto,
  type RequestBody,
  type RequestDto,
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

const PHONE = "+55 (11) 99999-9999";
const NUMBER = "5511999999999";

// One valid request object of every kind, each built from input that the request object normalizes.
const EVERY_REQUEST: readonly [string, RequestDto][] = [
  ["SendTextMessageDto", SendTextMessageDto.from({ number: PHONE, text: "Hi" })],
  [
    "SendMediaMessageDto",
    SendMediaMessageDto.from({ number: PHONE, mediatype: "image", media: "https://e.x/a.png" }),
  ],
  ["SendAudioMessageDto", SendAudioMessageDto.from({ number: PHONE, audio: "https://e.x/a.ogg" })],
  ["SendPtvMessageDto", SendPtvMessageDto.from({ number: PHONE, video: "https://e.x/v.mp4" })],
  ["SendStickerMessageDto", SendStickerMessageDto.from({ number: PHONE, sticker: "https://e.x/s.webp" })],
  [
    "SendStatusMessageDto",
    SendStatusMessageDto.from({
      type: "text",
      content: "Open",
      backgroundColor: "#008000",
      font: 1,
      allContacts: true,
    }),
  ],
  [
    "SendLocationMessageDto",
    SendLocationMessageDto.from({ number: PHONE, latitude: -23.55, longitude: -46.63 }),
  ],
  [
    "SendContactMessageDto",
    SendContactMessageDto.from({
      number: PHONE,
      contact: [{ fullName: "Ana", phoneNumber: "+55 11 98888-7777" }],
    }),
  ],
  [
    "SendReactionMessageDto",
    SendReactionMessageDto.from({
      key: { id: "3EB0", remoteJid: `${NUMBER}@s.whatsapp.net`, fromMe: false },
      reaction: "👍",
    }),
  ],
  [
    "SendPollMessageDto",
    SendPollMessageDto.from({ number: PHONE, name: "Lunch?", values: ["Pizza", "Sushi"] }),
  ],
  [
    "SendListMessageDto",
    SendListMessageDto.from({
      number: PHONE,
      title: "Menu",
      footerText: "Thanks",
      buttonText: "Open",
      sections: [{ title: "Food", rows: [{ title: "Pizza", rowId: "pizza" }] }],
    }),
  ],
  [
    "SendButtonsMessageDto",
    SendButtonsMessageDto.from({
      number: PHONE,
      title: "Pick",
      buttons: [{ type: "reply", displayText: "Yes", id: "y" }],
    }),
  ],
  [
    "SendTemplateMessageDto",
    SendTemplateMessageDto.from({ number: PHONE, name: "hello_world", language: "en_US" }),
  ],
  ["CreateInstanceDto", CreateInstanceDto.from({ instanceName: " sales ", qrcode: true })],
  ["CreateGroupDto", CreateGroupDto.from({ subject: "Team", participants: ["+55 11 98888-7777"] })],
  [
    "CreateTemplateDto",
    CreateTemplateDto.from({
      name: "order",
      category: "UTILITY",
      language: "en_US",
      components: [{ type: "BODY", text: "Hi" }],
    }),
  ],
  ["CallOfferDto", CallOfferDto.from({ number: PHONE, callDuration: 5 })],
  ["ProxyDto", ProxyDto.from({ host: "proxy.example.com", port: 3128, protocol: "http" })],
  [
    "SettingsDto",
    SettingsDto.from({
      rejectCall: false,
      groupsIgnore: true,
      alwaysOnline: true,
      readMessages: false,
      readStatus: false,
      syncFullHistory: false,
    }),
  ],
  [
    "PrivacySettingsDto",
    PrivacySettingsDto.from({
      readreceipts: "all",
      profile: "contacts",
      status: "contacts",
      online: "all",
      last: "none",
      groupadd: "contacts",
    }),
  ],
  [
    "WebhookConfigDto",
    WebhookConfigDto.from({ url: "https://example.com/hook", events: ["messages.upsert"] }),
  ],
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
