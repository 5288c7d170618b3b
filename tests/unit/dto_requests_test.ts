import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  CallOfferDto,
  CreateGroupDto,
  CreateInstanceDto,
  CreateTemplateDto,
  PrivacySettingsDto,
  ProxyDto,
  SettingsDto,
  ValidationException,
  WebhookConfigDto,
} from "../../mod.ts";
import { WEBHOOK_CONFIG_EVENTS } from "../../src/webhooks/events/names.ts";
import { webhookEventName } from "../../src/dto/webhook_config.ts";

function invalid(build: () => unknown, messages: string[]): void {
  throws(build, (error) => {
    ok(error instanceof ValidationException, String(error));
    deepStrictEqual(error.messages, messages);
    return true;
  });
}

Deno.test("CreateInstanceDto: defaults, webhook events always an array, extra keys passed through", () => {
  deepStrictEqual(CreateInstanceDto.from({ instanceName: " sales " }).toJSON(), {
    instanceName: "sales",
    integration: "WHATSAPP-BAILEYS",
  });
  deepStrictEqual(
    CreateInstanceDto.from({
      instanceName: "sales",
      qrcode: true,
      number: "+55 11 99999-9999",
      rejectCall: true,
      msgCall: "Busy",
      proxyPort: 3128,
      proxyProtocol: "http",
      proxyHost: "p.example.com",
      webhook: { url: "https://example.com/hook", byEvents: true, events: ["messages.upsert"] },
      chatwootAccountId: "7",
      rabbitmq: { enabled: true, events: [] },
    }).toJSON(),
    {
      instanceName: "sales",
      integration: "WHATSAPP-BAILEYS",
      qrcode: true,
      number: "5511999999999",
      rejectCall: true,
      msgCall: "Busy",
      proxyPort: "3128",
      proxyProtocol: "http",
      proxyHost: "p.example.com",
      webhook: { url: "https://example.com/hook", byEvents: true, events: ["MESSAGES_UPSERT"] },
      chatwootAccountId: "7",
      rabbitmq: { enabled: true, events: [] },
    },
  );
  deepStrictEqual(
    CreateInstanceDto.from({ instanceName: "s", webhook: { url: "https://e.com/h" } }).body.webhook,
    {
      url: "https://e.com/h",
      events: [],
    },
  );
});

Deno.test("CreateInstanceDto: every problem named", () => {
  invalid(
    () =>
      CreateInstanceDto.from({
        instanceName: "",
        integration: "TELEGRAM" as "EVOLUTION",
        qrcode: "yes" as never,
        proxyPort: 70000,
        proxyProtocol: "ftp",
        webhook: { url: "example.com", events: ["NOPE"] },
      }),
    [
      "instanceName must not be empty",
      'integration must be one of "WHATSAPP-BAILEYS", "WHATSAPP-BUSINESS", "EVOLUTION"',
      "qrcode must be true or false",
      "proxyPort must be a port number between 1 and 65535",
      'proxyProtocol must be one of "http", "https", "socks4", "socks5"',
      "webhook.url must be an http(s) URL",
      'webhook.events[0] "NOPE" is not a webhook event (use UPPER_SNAKE names such as "MESSAGES_UPSERT"; see WEBHOOK_CONFIG_EVENTS)',
    ],
  );
  invalid(() => CreateInstanceDto.from({ instanceName: "meta", integration: "WHATSAPP-BUSINESS" }), [
    "token is required for WHATSAPP-BUSINESS",
    "number is required for WHATSAPP-BUSINESS",
  ]);
  invalid(() => CreateInstanceDto.from({} as never), ["instanceName is required"]);
});

Deno.test("webhookEventName accepts UPPER_SNAKE and dotted names, including the server's GROUP_UPDATE mismatch", () => {
  strictEqual(Object.keys(WEBHOOK_CONFIG_EVENTS).length, 31);
  strictEqual(webhookEventName("MESSAGES_UPSERT"), "MESSAGES_UPSERT");
  strictEqual(webhookEventName("messages.upsert"), "MESSAGES_UPSERT");
  strictEqual(webhookEventName("Connection.Update"), "CONNECTION_UPDATE");
  strictEqual(webhookEventName("group-participants.update"), "GROUP_PARTICIPANTS_UPDATE");
  strictEqual(webhookEventName("typebot.change-status"), "TYPEBOT_CHANGE_STATUS");
  strictEqual(webhookEventName("groups.update"), "GROUP_UPDATE");
  strictEqual(webhookEventName("send.message.update"), "SEND_MESSAGE_UPDATE");
  strictEqual(webhookEventName("GROUPS_UPDATE"), null);
  strictEqual(webhookEventName("messages_upsert"), null);
  strictEqual(webhookEventName("toString"), null);
});

Deno.test("WebhookConfigDto: the server's wrapped body with every field and events always an array", () => {
  deepStrictEqual(WebhookConfigDto.from({ url: "https://example.com/hook" }).toJSON(), {
    webhook: {
      enabled: true,
      url: "https://example.com/hook",
      headers: {},
      byEvents: false,
      base64: false,
      events: [],
    },
  });
  deepStrictEqual(
    WebhookConfigDto.from({
      url: "https://example.com/hook",
      enabled: false,
      byEvents: true,
      base64: true,
      headers: { jwt_key: "secret" },
      events: ["messages.upsert", "MESSAGES_UPSERT", "CALL"],
    }).toJSON(),
    {
      webhook: {
        enabled: false,
        url: "https://example.com/hook",
        headers: { jwt_key: "secret" },
        byEvents: true,
        base64: true,
        events: ["MESSAGES_UPSERT", "CALL"],
      },
    },
  );
  invalid(
    () =>
      WebhookConfigDto.from({
        url: "ftp://example.com",
        enabled: "true" as never,
        events: ["MESSAGE_UPSERT", 3 as never],
        headers: { "x-n": 1 as never },
      }),
    [
      "enabled must be true or false",
      "url must be an http(s) URL",
      "headers.x-n must be a string",
      'events[0] "MESSAGE_UPSERT" is not a webhook event (use UPPER_SNAKE names such as "MESSAGES_UPSERT"; see WEBHOOK_CONFIG_EVENTS)',
      'events[1] 3 is not a webhook event (use UPPER_SNAKE names such as "MESSAGES_UPSERT"; see WEBHOOK_CONFIG_EVENTS)',
    ],
  );
  invalid(() => WebhookConfigDto.from({ events: "ALL" } as never), [
    "url is required",
    "events must be an array",
  ]);
});

Deno.test("SettingsDto: all six booleans required", () => {
  const full = {
    rejectCall: true,
    msgCall: "Busy",
    groupsIgnore: false,
    alwaysOnline: false,
    readMessages: false,
    readStatus: false,
    syncFullHistory: false,
  };
  deepStrictEqual(SettingsDto.from(full).toJSON(), full);
  invalid(() => SettingsDto.from({ rejectCall: "no", msgCall: 1 } as never), [
    "rejectCall must be true or false",
    "msgCall must be a string",
    "groupsIgnore is required",
    "alwaysOnline is required",
    "readMessages is required",
    "readStatus is required",
    "syncFullHistory is required",
  ]);
});

Deno.test("CreateGroupDto: subject and 10+ digit participants", () => {
  deepStrictEqual(
    CreateGroupDto.from({ subject: "Team", participants: ["+55 11 99999-9999", "123@lid"] }).toJSON(),
    {
      subject: "Team",
      participants: ["5511999999999", "123@lid"],
    },
  );
  invalid(
    () => CreateGroupDto.from({ subject: "", participants: ["12345678"], promoteParticipants: 1 as never }),
    [
      "subject must not be empty",
      "promoteParticipants must be true or false",
      'participants[0] must be a phone number in international form (e.g. "5511999999999") or a JID ending in @s.whatsapp.net, @g.us or @lid; got "12345678"',
    ],
  );
  invalid(
    () =>
      CreateGroupDto.from({ subject: "T", participants: ["5511999999999"], profilePicture: "x" } as never),
    ["profilePicture is not read by the server when creating a group; set it after"],
  );
  invalid(() => CreateGroupDto.from({ subject: "T", participants: [] }), [
    "participants must have at least 1 item",
  ]);
});

Deno.test("PrivacySettingsDto: six fields from their allowed values", () => {
  const all = {
    readreceipts: "all",
    profile: "all",
    status: "all",
    online: "all",
    last: "all",
    groupadd: "all",
  } as const;
  deepStrictEqual(PrivacySettingsDto.from(all).toJSON(), all);
  invalid(() => PrivacySettingsDto.from({ ...all, readreceipts: "contacts", online: "none" } as never), [
    'readreceipts must be one of "all", "none"',
    'online must be one of "all", "match_last_seen"',
  ]);
  invalid(() => PrivacySettingsDto.from({} as never), [
    "readreceipts is required",
    "profile is required",
    "status is required",
    "online is required",
    "last is required",
    "groupadd is required",
  ]);
});

Deno.test("ProxyDto: host, port as a string, protocol", () => {
  deepStrictEqual(
    ProxyDto.from({ host: "10.0.0.1", port: 1080, protocol: "socks5", username: "u", password: "p" })
      .toJSON(),
    {
      enabled: true,
      host: "10.0.0.1",
      port: "1080",
      protocol: "socks5",
      username: "u",
      password: "p",
    },
  );
  invalid(() => ProxyDto.from({ host: "", port: "http", protocol: "tor" as "http" }), [
    "host must not be empty",
    "port must be a port number between 1 and 65535",
    'protocol must be one of "http", "https", "socks4", "socks5"',
  ]);
  invalid(() => ProxyDto.from({ host: "h", protocol: "http" } as never), ["port is required"]);
});

Deno.test("CallOfferDto and CreateTemplateDto", () => {
  deepStrictEqual(CallOfferDto.from({ number: "5511999999999", callDuration: 15 }).toJSON(), {
    number: "5511999999999",
    callDuration: 15,
  });
  invalid(() => CallOfferDto.from({ number: "x", callDuration: 0, isVideo: "no" as never }), [
    'number must be a phone number in international form (e.g. "5511999999999") or a JID ending in @s.whatsapp.net, @g.us or @lid; got "x"',
    "isVideo must be true or false",
    "callDuration must be between 1 and 15",
  ]);
  invalid(
    () =>
      CreateTemplateDto.from({ name: "t", category: "PROMO" as "MARKETING", language: "en", components: [] }),
    [
      'category must be one of "AUTHENTICATION", "MARKETING", "UTILITY"',
      "components must have at least 1 item",
    ],
  );
});
