// Each payload shape the server sends maps to exactly its filter queries (table-driven), with the fields
// the context reads. Shapes from ../shared/contract/gateway-server.md §6 and the server's
// whatsapp.baileys.service.ts (2.3.6): prepareMessage, the messages.update and group-participants.update
// handlers, and the protocol message sent as messages.edited.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { toBotUpdate } from "../../src/bot/update.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import type { BotUpdate } from "../../src/bot/mod.ts";

const ANA = "5511999999999@s.whatsapp.net";
const GROUP = "120363000000000000@g.us";

function upsert(message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    event: "messages.upsert",
    instance: "sales",
    sender: "5511900000000@s.whatsapp.net",
    data: {
      key: { remoteJid: ANA, fromMe: false, id: "3EB0A1" },
      pushName: "Ana",
      status: "DELIVERY_ACK",
      message,
      contextInfo: null,
      messageType: Object.keys(message)[0],
      messageTimestamp: 1_760_000_000,
      instanceId: "i-1",
      source: "android",
      ...extra,
    },
  };
}

interface Case {
  name: string;
  body: Record<string, unknown>;
  queries: string[];
  check?: (update: BotUpdate) => void;
}

const CASES: Case[] = [
  {
    name: "plain text (conversation)",
    body: upsert({ conversation: "hi" }),
    queries: ["message", "message:text"],
    check: (u) => {
      strictEqual(u.msg?.text, "hi");
      deepStrictEqual(u.chat, { id: ANA, isGroup: false });
      deepStrictEqual(u.from, { id: ANA, phone: "5511999999999", lid: undefined, name: "Ana" });
      strictEqual(u.msg?.timestamp, 1_760_000_000_000);
    },
  },
  {
    name: "extendedTextMessage (a reply quoting a message)",
    body: upsert({
      extendedTextMessage: {
        text: "yes please",
        contextInfo: {
          stanzaId: "BOT7",
          participant: "5511900000000@s.whatsapp.net",
          quotedMessage: { conversation: "Want it?" },
        },
      },
    }),
    queries: ["message", "message:text"],
    check: (u) => {
      strictEqual(u.msg?.text, "yes please");
      deepStrictEqual(u.msg?.quoted, {
        id: "BOT7",
        participant: "5511900000000@s.whatsapp.net",
        text: "Want it?",
      });
    },
  },
  {
    name: "image with caption",
    body: upsert({
      imageMessage: {
        url: "https://mmg.whatsapp.net/x",
        mimetype: "image/jpeg",
        caption: "look",
        fileLength: "1024",
        height: 10,
        width: 10,
      },
    }),
    queries: ["message", "message:image"],
    check: (u) => {
      strictEqual(u.msg?.text, "look");
      strictEqual(u.msg?.caption, "look");
      strictEqual(u.msg?.media?.mimetype, "image/jpeg");
    },
  },
  {
    name: "buttons reply",
    body: upsert({
      buttonsResponseMessage: {
        selectedButtonId: "yes",
        selectedDisplayText: "Yes",
        type: "DISPLAY_TEXT",
        contextInfo: { stanzaId: "BOT2" },
      },
    }),
    queries: ["message", "message:button"],
    check: (u) => {
      strictEqual(u.msg?.buttonId, "yes");
      strictEqual(u.msg?.text, "Yes");
    },
  },
  {
    name: "template-button reply",
    body: upsert({
      templateButtonReplyMessage: {
        selectedId: "track",
        selectedDisplayText: "Track order",
        selectedIndex: 1,
      },
    }),
    queries: ["message", "message:button"],
    check: (u) => strictEqual(u.msg?.buttonId, "track"),
  },
  {
    name: "list reply",
    body: upsert({
      listResponseMessage: {
        title: "Pizza",
        listType: "SINGLE_SELECT",
        singleSelectReply: { selectedRowId: "row-pizza" },
        description: "Large",
      },
    }),
    queries: ["message", "message:list"],
    check: (u) => {
      strictEqual(u.msg?.rowId, "row-pizza");
      strictEqual(u.msg?.text, "Pizza");
    },
  },
  {
    name: "reaction added",
    body: upsert({
      reactionMessage: {
        key: { remoteJid: ANA, fromMe: true, id: "BOT3" },
        text: "👍",
        senderTimestampMs: "1760000000123",
      },
    }),
    queries: ["message", "message:reaction"],
    check: (u) => {
      strictEqual(u.msg?.reaction, "👍");
      strictEqual(u.msg?.reactionTo, "BOT3");
    },
  },
  {
    name: "reaction removed",
    body: upsert({ reactionMessage: { key: { remoteJid: ANA, fromMe: true, id: "BOT3" }, text: "" } }),
    queries: ["message", "message:reaction"],
    check: (u) => strictEqual(u.msg?.reaction, ""),
  },
  {
    // 2.3.6's sendButtons sends an interactive message with quick-reply buttons ({ display_text, id }); a tap
    // comes back as a native flow reply whose parameters carry the id.
    name: "quick-reply button reply (interactiveResponseMessage)",
    body: upsert({
      interactiveResponseMessage: {
        body: { text: "Yes", format: "DEFAULT" },
        nativeFlowResponseMessage: { name: "quick_reply", paramsJson: '{"id":"yes"}', version: 3 },
        contextInfo: { stanzaId: "BOT8", participant: "5511900000000@s.whatsapp.net", quotedMessage: {} },
      },
    }),
    queries: ["message", "message:button"],
    check: (u) => {
      strictEqual(u.msg?.buttonId, "yes");
      strictEqual(u.msg?.text, "Yes");
      strictEqual(u.msg?.quoted?.id, "BOT8");
    },
  },
  {
    name: "a native flow reply without a button id is a message only",
    body: upsert({
      interactiveResponseMessage: {
        body: { text: "Form sent" },
        nativeFlowResponseMessage: { name: "galaxy_message", paramsJson: '{"flow_token":"t"}', version: 3 },
      },
    }),
    queries: ["message"],
    check: (u) => strictEqual(u.msg?.buttonId, undefined),
  },
  {
    // 2.3.6 forwards Baileys' envelope as it is (prepareMessage unwraps none): messageType is the envelope's.
    name: "a text in a chat with disappearing messages (ephemeralMessage)",
    body: upsert({
      ephemeralMessage: {
        message: {
          extendedTextMessage: {
            text: "hi, it vanishes",
            contextInfo: { expiration: 604800, mentionedJid: ["5511900000000@s.whatsapp.net"] },
          },
        },
      },
    }),
    queries: ["message", "message:text"],
    check: (u) => {
      strictEqual(u.msg?.text, "hi, it vanishes");
      strictEqual(u.msg?.type, "extendedTextMessage");
      deepStrictEqual(u.msg?.mentions, ["5511900000000@s.whatsapp.net"]);
    },
  },
  {
    name: "a view-once photo with a caption (viewOnceMessageV2)",
    body: upsert({
      viewOnceMessageV2: {
        message: { imageMessage: { caption: "once", mimetype: "image/jpeg", viewOnce: true } },
      },
    }),
    queries: ["message", "message:image"],
    check: (u) => {
      strictEqual(u.msg?.caption, "once");
      strictEqual(u.msg?.type, "imageMessage");
      strictEqual(u.msg?.media?.mimetype, "image/jpeg");
    },
  },
  {
    name: "messages.edited (protocol message, enum as a string)",
    body: {
      event: "messages.edited",
      instance: "sales",
      data: {
        key: { remoteJid: ANA, fromMe: false, id: "3EB0A1" },
        type: "MESSAGE_EDIT",
        editedMessage: { conversation: "hi, fixed" },
        timestampMs: "1760000005000",
      },
    },
    queries: ["edit"],
    check: (u) => {
      strictEqual(u.msg?.id, "3EB0A1");
      strictEqual(u.msg?.text, "hi, fixed");
      strictEqual(u.msg?.timestamp, 1_760_000_005_000);
    },
  },
  {
    name: "messages.edited (enum as a number, wrapped message)",
    body: {
      event: "messages.edited",
      instance: "sales",
      data: {
        key: { remoteJid: ANA, fromMe: false, id: "3EB0A2" },
        type: 14,
        editedMessage: { message: { extendedTextMessage: { text: "v2" } } },
      },
    },
    queries: ["edit"],
    check: (u) => strictEqual(u.msg?.text, "v2"),
  },
  {
    name: "messages.update DELETED",
    body: {
      event: "messages.update",
      instance: "sales",
      data: {
        keyId: "3EB0A1",
        remoteJid: ANA,
        fromMe: false,
        participant: null,
        status: "DELETED",
        instanceId: "i-1",
      },
    },
    queries: ["delete"],
    check: (u) => strictEqual(u.msg?.id, "3EB0A1"),
  },
  {
    name: "messages.update READ of an own message",
    body: {
      event: "messages.update",
      instance: "sales",
      data: { keyId: "BOT4", remoteJid: ANA, fromMe: true, status: "READ", instanceId: "i-1" },
    },
    queries: ["status"],
    check: (u) => {
      strictEqual(u.status, "READ");
      strictEqual(u.own, true);
    },
  },
  ...(["add", "remove", "promote", "demote"] as const).map((action, i): Case => ({
    name: `group-participants.update ${action}`,
    body: {
      event: "group-participants.update",
      instance: "sales",
      data: {
        id: GROUP,
        participants: [ANA],
        action,
        participantsData: [{ jid: ANA, phoneNumber: "5511999999999" }],
      },
    },
    queries: [["group:join", "group:leave", "group:promote", "group:demote"][i]],
    check: (u) => {
      deepStrictEqual(u.group, { id: GROUP, action, participants: [ANA], author: undefined });
      deepStrictEqual(u.chat, { id: GROUP, isGroup: true });
    },
  })),
];

for (const c of CASES) {
  Deno.test(`payload -> queries: ${c.name}`, () => {
    const update = toBotUpdate(WebhookPayloadDto.from(c.body, { receivedAt: 5 })!);
    deepStrictEqual([...update.queries], c.queries);
    c.check?.(update);
  });
}

Deno.test("own messages, echoes and status posts match only their explicit queries", () => {
  const own = toBotUpdate(
    WebhookPayloadDto.from(upsert({ conversation: "from the phone" }, {
      key: { remoteJid: ANA, fromMe: true, id: "3EB0B1" },
    }))!,
  );
  deepStrictEqual([own.kind, [...own.queries], own.own], ["outgoing", ["outgoing"], true]);
  const sent = toBotUpdate(
    WebhookPayloadDto.from({ ...upsert({ conversation: "bot reply" }), event: "send.message" })!,
  );
  deepStrictEqual([sent.kind, [...sent.queries], sent.own], ["outgoing", ["outgoing"], true]);
  const story = toBotUpdate(
    WebhookPayloadDto.from(upsert({ imageMessage: {} }, {
      key: { remoteJid: "status@broadcast", fromMe: false, id: "S1", participant: ANA },
    }))!,
  );
  deepStrictEqual([story.kind, [...story.queries], story.own], ["story", ["story"], true]);
});

Deno.test("@lid chats take the phone JID the payload carries; groups keep the group JID", () => {
  const lid = toBotUpdate(
    WebhookPayloadDto.from(upsert({ conversation: "x" }, {
      key: {
        remoteJid: "123456789012345@lid",
        remoteJidAlt: ANA,
        addressingMode: "lid",
        fromMe: false,
        id: "L1",
      },
    }))!,
  );
  deepStrictEqual(lid.chat, { id: ANA, isGroup: false });
  deepStrictEqual(lid.from?.lid, "123456789012345@lid");
  const group = toBotUpdate(
    WebhookPayloadDto.from(upsert({ conversation: "@bot hi" }, {
      key: { remoteJid: GROUP, fromMe: false, id: "G1", participant: "98765@lid", participantAlt: ANA },
      contextInfo: { mentionedJid: ["5511900000000@s.whatsapp.net"] },
    }))!,
  );
  deepStrictEqual(group.chat, { id: GROUP, isGroup: true });
  strictEqual(group.from?.id, ANA);
  deepStrictEqual(group.msg?.mentions, ["5511900000000@s.whatsapp.net"]);
});

Deno.test("connection and call updates", () => {
  const connection = toBotUpdate(
    WebhookPayloadDto.from({
      event: "connection.update",
      instance: "sales",
      data: { instance: "sales", state: "open", statusReason: 200 },
    })!,
  );
  deepStrictEqual([[...connection.queries], connection.connection], [["connection"], {
    state: "open",
    statusReason: 200,
  }]);
  const call = toBotUpdate(
    WebhookPayloadDto.from({
      event: "call",
      instance: "sales",
      data: { id: "C1", from: ANA, chatId: ANA, status: "offer", isVideo: false, isGroup: false },
    })!,
  );
  deepStrictEqual([[...call.queries], call.call], [["call"], {
    id: "C1",
    from: ANA,
    isVideo: false,
    status: "offer",
  }]);
});
