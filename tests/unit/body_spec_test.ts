import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { ValidationException } from "../../mod.ts";
import { type BodySpec, readBody } from "../../src/dto/body_spec.ts";
import {
  BLOCK_STATUS_BODY,
  GROUP_EPHEMERAL_BODY,
  GROUP_PARTICIPANTS_BODY,
  GROUP_SUBJECT_BODY,
  HANDLE_LABEL_BODY,
  SEND_PRESENCE_BODY,
  SET_PRESENCE_BODY,
} from "../../src/resources/bodies.ts";
import { CALL_OFFER_BODY, CallOfferDto } from "../../src/dto/call_offer.ts";
import { CREATE_TEMPLATE_BODY, CreateTemplateDto } from "../../src/dto/create_template.ts";
import { PRIVACY_SETTINGS_BODY, PrivacySettingsDto } from "../../src/dto/privacy_settings.ts";
import { PROXY_BODY, ProxyDto } from "../../src/dto/proxy.ts";
import { SETTINGS_BODY, SettingsDto } from "../../src/dto/settings.ts";
import { SEND_MEDIA_BODY, SendMediaMessageDto } from "../../src/dto/media_messages.ts";
import {
  SEND_LOCATION_BODY,
  SEND_POLL_BODY,
  SEND_TEMPLATE_BODY,
  SendLocationMessageDto,
  SendPollMessageDto,
  SendTemplateMessageDto,
} from "../../src/dto/structured_messages.ts";
import { SEND_TEXT_BODY, SendTextMessageDto } from "../../src/dto/text_message.ts";
import { call, createInstance, newSim } from "../helpers/simulator.ts";
import {
  BOT_SETTINGS_BODY,
  OPENAI_CREDS_BODY,
  TYPEBOT_BODY,
  TYPEBOT_START_BODY,
} from "../../src/dto/chatbot_bodies.ts";
import { CHATWOOT_BODY } from "../../src/dto/integration_bodies.ts";
import { SETTINGS } from "../fixtures/resources_cases_integrations.ts";

/** A body the resources read with its declaration (no request object). */
const plain = (spec: BodySpec) => (input: unknown) => {
  const body = readBody(spec, input);
  return { toJSON: () => body };
};

interface DeclaredBody {
  spec: BodySpec;
  from(input: unknown): { toJSON(): unknown };
  route: string;
  valid: Record<string, unknown>;
}

const BODIES: DeclaredBody[] = [
  {
    spec: SETTINGS_BODY,
    from: (input) => SettingsDto.from(input as never),
    route: "/settings/set/sales",
    valid: {
      rejectCall: true,
      msgCall: "Busy",
      groupsIgnore: false,
      alwaysOnline: false,
      readMessages: false,
      readStatus: false,
      syncFullHistory: false,
    },
  },
  {
    spec: PRIVACY_SETTINGS_BODY,
    from: (input) => PrivacySettingsDto.from(input as never),
    route: "/chat/updatePrivacySettings/sales",
    valid: {
      readreceipts: "all",
      profile: "all",
      status: "all",
      online: "all",
      last: "all",
      groupadd: "all",
    },
  },
  {
    spec: PROXY_BODY,
    from: (input) => ProxyDto.from(input as never),
    route: "/proxy/set/sales",
    valid: { enabled: false, host: "proxy.example.com", port: "3128", protocol: "http" },
  },
  {
    spec: CALL_OFFER_BODY,
    from: (input) => CallOfferDto.from(input as never),
    route: "/call/offer/sales",
    valid: { number: "5511999999999", isVideo: false, callDuration: 5 },
  },
  {
    spec: CREATE_TEMPLATE_BODY,
    from: (input) => CreateTemplateDto.from(input as never),
    route: "/template/create/sales",
    valid: {
      name: "welcome",
      category: "UTILITY",
      language: "en_US",
      components: [{ type: "BODY", text: "Hello" }],
    },
  },
  {
    spec: SEND_TEXT_BODY,
    from: (input) => SendTextMessageDto.from(input as never),
    route: "/message/sendText/sales",
    valid: { number: "5511999999999", text: "Hi", linkPreview: false, delay: 1200 },
  },
  {
    spec: SEND_MEDIA_BODY,
    from: (input) => SendMediaMessageDto.from(input as never),
    route: "/message/sendMedia/sales",
    valid: {
      number: "5511999999999",
      mediatype: "image",
      media: "https://example.com/a.png",
      caption: "Look",
    },
  },
  {
    spec: SEND_LOCATION_BODY,
    from: (input) => SendLocationMessageDto.from(input as never),
    route: "/message/sendLocation/sales",
    valid: {
      number: "5511999999999",
      latitude: -23.5,
      longitude: -46.6,
      name: "Office",
      address: "Av. Paulista",
    },
  },
  {
    spec: SEND_POLL_BODY,
    from: (input) => SendPollMessageDto.from(input as never),
    route: "/message/sendPoll/sales",
    valid: { number: "5511999999999", name: "Lunch?", selectableCount: 1, values: ["Yes", "No"] },
  },
  {
    spec: SEND_TEMPLATE_BODY,
    from: (input) => SendTemplateMessageDto.from(input as never),
    route: "/message/sendTemplate/sales",
    valid: { number: "5511999999999", name: "welcome", language: "en_US" },
  },
  ...[
    { spec: SET_PRESENCE_BODY, route: "/instance/setPresence/sales", valid: { presence: "available" } },
    {
      spec: SEND_PRESENCE_BODY,
      route: "/chat/sendPresence/sales",
      valid: { number: "5511999999999", delay: 0, presence: "composing" },
    },
    {
      spec: BLOCK_STATUS_BODY,
      route: "/chat/updateBlockStatus/sales",
      valid: { number: "5511999999999", status: "block" },
    },
    {
      spec: HANDLE_LABEL_BODY,
      route: "/label/handleLabel/sales",
      valid: { number: "5511999999999", labelId: "3", action: "add" },
    },
    {
      spec: GROUP_SUBJECT_BODY,
      route: "/group/updateGroupSubject/sales",
      valid: { groupJid: "120363025246125888@g.us", subject: "Team" },
    },
    {
      spec: GROUP_PARTICIPANTS_BODY,
      route: "/group/updateParticipant/sales",
      valid: { groupJid: "120363025246125888@g.us", action: "add", participants: ["5511999999999"] },
    },
    {
      spec: GROUP_EPHEMERAL_BODY,
      route: "/group/toggleEphemeral/sales",
      valid: { groupJid: "120363025246125888@g.us", expiration: 86400 },
    },
  ].map((body) => ({
    ...body,
    from: (input: unknown) => {
      const json = readBody(body.spec, input);
      return { toJSON: () => json };
    },
  })),
  {
    spec: TYPEBOT_BODY,
    from: plain(TYPEBOT_BODY),
    route: "/typebot/create/sales",
    valid: { enabled: true, url: "https://typebot.example.com", typebot: "welcome", triggerType: "none" },
  },
  {
    spec: BOT_SETTINGS_BODY,
    from: plain(BOT_SETTINGS_BODY),
    route: "/dify/settings/sales",
    valid: SETTINGS,
  },
  {
    spec: TYPEBOT_START_BODY,
    from: plain(TYPEBOT_START_BODY),
    route: "/typebot/start/sales",
    valid: {
      remoteJid: "5511999999999@s.whatsapp.net",
      url: "https://typebot.example.com",
      typebot: "welcome",
    },
  },
  {
    spec: OPENAI_CREDS_BODY,
    from: plain(OPENAI_CREDS_BODY),
    route: "/openai/creds/sales",
    valid: { name: "main", apiKey: "sk-1" },
  },
  {
    spec: CHATWOOT_BODY,
    from: plain(CHATWOOT_BODY),
    route: "/chatwoot/set/sales",
    valid: {
      enabled: true,
      accountId: "1",
      token: "t",
      url: "https://chatwoot.example.com",
      signMsg: false,
      reopenConversation: false,
      conversationPending: false,
    },
  },
];

Deno.test("body declarations: the request object (or resource) keeps a valid body as declared, in the declared order", () => {
  for (const body of BODIES) {
    const json = body.from(body.valid).toJSON() as Record<string, unknown>;
    deepStrictEqual(json, body.valid, body.spec.what);
    const declared = Object.keys(body.spec.fields).filter((name) => name in json);
    deepStrictEqual(Object.keys(json), declared, `${body.spec.what}: field order`);
  }
});

Deno.test("body declarations: a missing required field is refused by the request object and the simulator", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  for (const body of BODIES) {
    for (const [name, field] of Object.entries(body.spec.fields)) {
      if (!field.required || field.default !== undefined) continue;
      const { [name]: _dropped, ...rest } = body.valid;
      throws(() => body.from(rest), (error: unknown) => {
        ok(error instanceof ValidationException, String(error));
        deepStrictEqual(error.messages, [`${name} is required`], `${body.spec.what}.${name}`);
        return true;
      });
      // The server takes a missing group id from the query, and says so in its own words.
      if (field.serverRequired === false || name === "groupJid") continue;
      const res = await call(sim, "POST", body.route, rest);
      strictEqual(res.status, 400, `${body.route} without ${name}`);
      ok(JSON.stringify(res.body).includes(`requires property \\"${name}\\"`), JSON.stringify(res.body));
    }
  }
  await sim.close();
});

Deno.test("body declarations: a value outside the declared values is refused by both, unless the server lists none", async () => {
  const sim = newSim();
  await createInstance(sim, "sales");
  const privacy = await call(sim, "POST", "/chat/updatePrivacySettings/sales", {
    ...BODIES[1].valid,
    online: "nobody",
  });
  strictEqual(privacy.status, 400);
  throws(
    () => PrivacySettingsDto.from({ ...BODIES[1].valid, online: "nobody" } as never),
    ValidationException,
  );
  // The server checks no protocol names (its schema has a plain string); the request object does.
  throws(() => ProxyDto.from({ ...BODIES[2].valid, protocol: "ftp" } as never), ValidationException);
  const proxy = await call(sim, "POST", "/proxy/set/sales", { ...BODIES[2].valid, protocol: "ftp" });
  strictEqual(proxy.status, 201);
  await sim.close();
});
