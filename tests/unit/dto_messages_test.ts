import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
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
  ValidationException,
} from "../../mod.ts";
import { normalizeNumber } from "../../src/resources/mod.ts";
import { mediaKind } from "../../src/dto/validate.ts";
import { readBody } from "../../src/dto/body_spec.ts";
import { readTextBody, SEND_TEXT_BODY, textBodyOf } from "../../src/dto/text_message.ts";

const BAD_NUMBER = (value: string, field = "number") =>
  `${field} must be a phone number in international form (e.g. "5511999999999") or a JID ending in ` +
  `@s.whatsapp.net, @g.us or @lid; got ${JSON.stringify(value)}`;

/** Assert `from` throws a ValidationException with exactly these messages. */
function invalid(build: () => unknown, messages: string[], title?: string): void {
  throws(build, (error) => {
    ok(error instanceof ValidationException, String(error));
    deepStrictEqual(error.messages, messages);
    if (title) strictEqual(error.message, title);
    return true;
  });
}

Deno.test("normalizeNumber strips formatting, keeps JIDs, refuses the rest", () => {
  strictEqual(normalizeNumber("+55 (11) 99999-9999"), "5511999999999");
  strictEqual(normalizeNumber(" 1.415.555.0100 "), "14155550100");
  strictEqual(normalizeNumber("5511999999999@s.whatsapp.net"), "5511999999999@s.whatsapp.net");
  strictEqual(normalizeNumber("120363025246125888@g.us"), "120363025246125888@g.us");
  strictEqual(normalizeNumber("5511999999999-1623281234@g.us"), "5511999999999-1623281234@g.us");
  strictEqual(normalizeNumber("123456789012345@lid"), "123456789012345@lid");
  for (const bad of ["abc", "12345", "5511999999999@example.com", "+55 11 9999x-9999", "", "1".repeat(21)]) {
    strictEqual(normalizeNumber(bad), null, bad);
  }
});

Deno.test("mediaKind tells URLs, raw base64 and data URIs apart", () => {
  strictEqual(mediaKind("https://example.com/a.png"), "url");
  strictEqual(mediaKind("HTTP://example.com/a.png"), "url");
  strictEqual(mediaKind("iVBORw0KGgo="), "base64");
  strictEqual(mediaKind("iVBO\nRw0K Ggo="), "base64");
  strictEqual(mediaKind("data:image/png;base64,iVBORw0KGgo="), "data-uri");
  strictEqual(mediaKind("ftp://example.com/a.png"), "invalid");
  strictEqual(mediaKind("not base64!"), "invalid");
});

Deno.test("SendTextMessageDto: normalized body, everyOne refused (the server ignores it), every problem named", () => {
  deepStrictEqual(
    SendTextMessageDto.from({
      number: "+55 11 99999-9999",
      text: "Hi",
      mentionsEveryOne: true,
      linkPreview: true,
    })
      .toJSON(),
    { number: "5511999999999", text: "Hi", mentionsEveryOne: true, linkPreview: true },
  );
  invalid(
    () =>
      SendTextMessageDto.from({
        number: "abc",
        text: "   ",
        delay: -1,
        linkPreview: "no" as unknown as boolean,
        mentioned: ["@ana", "5511", "5511"],
        quoted: { key: { id: "" } },
      }),
    [
      BAD_NUMBER("abc"),
      "text must not be empty",
      "linkPreview must be true or false",
      "delay must be between 0 and 300000",
      "quoted.key.id must not be empty",
      "mentioned[0] must be a number starting with a digit",
      'mentioned[2] repeats "5511"',
    ],
    'Invalid text message: number must be a phone number in international form (e.g. "5511999999999") or a JID ' +
      'ending in @s.whatsapp.net, @g.us or @lid; got "abc"; text must not be empty; ' +
      "linkPreview must be true or false; delay must be between 0 and 300000; quoted.key.id must not be empty; " +
      'mentioned[0] must be a number starting with a digit; mentioned[2] repeats "5511"',
  );
  invalid(() => SendTextMessageDto.from({} as never), ["number is required", "text is required"]);
  invalid(() => SendTextMessageDto.from("hi" as never), ["request must be an object"]);
  invalid(() => SendTextMessageDto.from({ number: "5511999999999", text: "x", delay: 1.5, mentioned: [] }), [
    "delay must be an integer",
    "mentioned must have at least 1 item",
  ]);
  invalid(() => SendTextMessageDto.from({ number: "5511999999999", text: "x", everyOne: true } as never), [
    "everyOne is not read by the server; use mentionsEveryOne",
  ]);
});

Deno.test("a text body read on the quick way equals the full reading: same body, same errors", () => {
  const outcome = (read: () => unknown) => {
    try {
      return { body: read() };
    } catch (error) {
      ok(error instanceof ValidationException);
      return { error: error.message, messages: error.messages };
    }
  };
  const inputs: unknown[] = [
    { number: "5511999999999", text: "Hi" },
    { number: "1234567", text: "7 digits" },
    { number: "123456", text: "6 digits" },
    { number: "1".repeat(20), text: "20 digits" },
    { number: "1".repeat(21), text: "21 digits" },
    { number: " 5511999999999 ", text: "padded" },
    { number: "+55 (11) 99999-9999", text: "formatted" },
    { number: "120363025246125888@g.us", text: "group" },
    { number: "5511999999999", text: "   " },
    { number: "5511999999999", text: "" },
    { number: 5511999999999, text: "a number" },
    { number: "5511999999999" },
    { text: "no number" },
    { number: "5511999999999", text: "Hi", delay: 1200 },
    { number: "5511999999999", text: "Hi", delay: -1 },
    { number: "5511999999999", text: "Hi", linkPreview: null },
    { number: "5511999999999", text: "Hi", everyOne: true },
    { number: "5511999999999", text: "Hi", unknownKey: 1 },
    null,
    ["5511999999999", "Hi"],
    "5511999999999",
  ];
  for (const input of inputs) {
    const full = outcome(() => readBody(SEND_TEXT_BODY, input));
    deepStrictEqual(outcome(() => readTextBody(input)), full, JSON.stringify(input));
    deepStrictEqual(
      outcome(() => SendTextMessageDto.from(input as never).toJSON()),
      full,
      JSON.stringify(input),
    );
    if (
      input !== null && typeof input === "object" && !Array.isArray(input) && Object.keys(input).length === 2
    ) {
      const { number, text } = input as { number: unknown; text: unknown };
      deepStrictEqual(outcome(() => textBodyOf(number, text)), full, JSON.stringify(input));
    }
  }
});

Deno.test("a DTO is frozen, serialises with JSON.stringify, and from(dto) returns it", () => {
  const dto = SendTextMessageDto.from({ number: "5511999999999", text: "Hi" });
  strictEqual(SendTextMessageDto.from(dto), dto);
  strictEqual(JSON.stringify(dto), '{"number":"5511999999999","text":"Hi"}');
  ok(Object.isFrozen(dto.body));
  const copy = dto.toJSON();
  copy.text = "changed";
  strictEqual(dto.body.text, "Hi");
});

Deno.test("SendMediaMessageDto: URL or raw base64, data URI refused, fileName for base64 documents", () => {
  deepStrictEqual(
    SendMediaMessageDto.from({
      number: "5511999999999",
      mediatype: "document",
      media: "JVBE Ri0x\nLjQK",
      fileName: "a.pdf",
    })
      .toJSON(),
    { number: "5511999999999", mediatype: "document", media: "JVBERi0xLjQK", fileName: "a.pdf" },
  );
  invalid(
    () => SendMediaMessageDto.from({ number: "5511999999999", mediatype: "document", media: "JVBERi0xLjQK" }),
    ["fileName is required for a base64 document"],
  );
  invalid(
    () =>
      SendMediaMessageDto.from({
        number: "",
        mediatype: "gif" as "image",
        media: "data:image/png;base64,iVBORw0KGgo=",
        caption: 3 as unknown as string,
      }),
    [
      "number must not be empty",
      'mediatype must be one of "image", "document", "video", "audio"',
      'media must be an http(s) URL or raw base64, not a data URI: strip the "data:...;base64," prefix',
      "caption must be a string",
    ],
  );
  invalid(
    () => SendMediaMessageDto.from({ number: "5511999999999", mediatype: "image", media: "ftp://x/y" }),
    [
      "media must be an http(s) URL or raw base64",
    ],
  );
});

Deno.test("audio, ptv and sticker DTOs validate their media field", () => {
  deepStrictEqual(
    SendAudioMessageDto.from({ number: "5511999999999", audio: "https://e.com/a.ogg", encoding: false })
      .toJSON(),
    {
      number: "5511999999999",
      audio: "https://e.com/a.ogg",
      encoding: false,
    },
  );
  invalid(() => SendAudioMessageDto.from({ number: "5511999999999", audio: "" }), [
    "audio must not be empty",
  ]);
  invalid(() => SendPtvMessageDto.from({ number: "5511999999999" } as never), ["video is required"]);
  invalid(
    () =>
      SendStickerMessageDto.from({
        number: "5511999999999",
        sticker: "data:image/webp;base64,AAAA",
        notConvertSticker: 1 as never,
      }),
    [
      'sticker must be an http(s) URL or raw base64, not a data URI: strip the "data:...;base64," prefix',
      "notConvertSticker must be true or false",
    ],
  );
});

Deno.test("SendLocationMessageDto: coordinates in range; name and address default to empty strings", () => {
  deepStrictEqual(
    SendLocationMessageDto.from({ number: "5511999999999", latitude: -90, longitude: 180 }).toJSON(),
    {
      number: "5511999999999",
      latitude: -90,
      longitude: 180,
      name: "",
      address: "",
    },
  );
  invalid(() => SendLocationMessageDto.from({ number: "5511999999999", latitude: 91, longitude: -181 }), [
    "latitude must be between -90 and 90",
    "longitude must be between -180 and 180",
  ]);
  invalid(
    () => SendLocationMessageDto.from({ number: "5511999999999", latitude: NaN, longitude: "1" as never }),
    [
      "latitude must be a number",
      "longitude must be a number",
    ],
  );
});

Deno.test("SendContactMessageDto: at least one card, fullName and a 10+ character phoneNumber", () => {
  invalid(() => SendContactMessageDto.from({ number: "5511999999999", contact: [] }), [
    "contact must have at least 1 item",
  ]);
  invalid(
    () =>
      SendContactMessageDto.from({
        number: "5511999999999",
        contact: [
          { fullName: "", phoneNumber: "12345" },
          { fullName: "Bo", phoneNumber: "phone-number" },
          "x" as never,
        ],
      }),
    [
      "contact[0].fullName must not be empty",
      "contact[0].phoneNumber must be a phone number of at least 10 characters",
      "contact[1].phoneNumber must be a phone number of at least 10 characters",
      "contact[2] must be an object",
    ],
  );
});

Deno.test("SendReactionMessageDto: full key, one emoji or empty", () => {
  const key = { remoteJid: "5511999999999@s.whatsapp.net", id: "X", fromMe: true };
  deepStrictEqual(SendReactionMessageDto.from({ key, reaction: "👍🏽" }).toJSON(), { key, reaction: "👍🏽" });
  invalid(() => SendReactionMessageDto.from({ key: { id: "X" } as never, reaction: "👍👍" }), [
    "key.remoteJid is required",
    "key.fromMe is required",
    'reaction must be a single emoji or ""',
  ]);
  invalid(() => SendReactionMessageDto.from({ key } as never), [
    'reaction is required (use "" to remove a reaction)',
  ]);
});

Deno.test("SendPollMessageDto: 2–10 unique values and selectableCount 0–10", () => {
  strictEqual(
    SendPollMessageDto.from({ number: "5511999999999", name: "Q", values: ["a", "b"] }).body.selectableCount,
    1,
  );
  invalid(() => SendPollMessageDto.from({ number: "abc", name: "", values: ["A"] }), [
    BAD_NUMBER("abc"),
    "name must not be empty",
    "values must have between 2 and 10 items",
  ]);
  invalid(
    () =>
      SendPollMessageDto.from({
        number: "5511999999999",
        name: "Q",
        values: ["a", "a", ""],
        selectableCount: 11,
      }),
    ["selectableCount must be between 0 and 10", 'values[1] repeats "a"', "values[2] must not be empty"],
  );
  invalid(
    () =>
      SendPollMessageDto.from({
        number: "5511999999999",
        name: "Q",
        values: Array.from({ length: 11 }, (_, i) => `v${i}`),
        selectableCount: 1.5,
      }),
    ["selectableCount must be an integer", "values must have between 2 and 10 items"],
  );
});

Deno.test("SendListMessageDto: title, footer, button text and non-empty sections of rows", () => {
  invalid(
    () =>
      SendListMessageDto.from({
        number: "5511999999999",
        title: "",
        footerText: "F",
        buttonText: "",
        sections: [{ title: "S", rows: [] }, { title: "", rows: [{ title: "R" } as never] }],
      }),
    [
      "title must not be empty",
      "buttonText must not be empty",
      "sections[0].rows must have at least 1 item",
      "sections[1].title must not be empty",
      "sections[1].rows[0].rowId is required",
    ],
  );
});

Deno.test("SendButtonsMessageDto: fields per type, at most 3 replies, no mixing, pix alone", () => {
  const reply = (id: string) => ({ type: "reply" as const, displayText: id, id });
  invalid(
    () =>
      SendButtonsMessageDto.from({
        number: "5511999999999",
        buttons: [1, 2, 3, 4].map((i) => reply(`r${i}`)),
      }),
    [
      "buttons must have at most 3 reply buttons",
    ],
  );
  invalid(
    () =>
      SendButtonsMessageDto.from({
        number: "5511999999999",
        buttons: [reply("a"), { type: "url", displayText: "Site", url: "https://e.com" }],
      }),
    ["buttons cannot mix reply buttons with other types"],
  );
  invalid(
    () =>
      SendButtonsMessageDto.from({
        number: "5511999999999",
        buttons: [
          { type: "pix", currency: "BRL", name: "Shop", keyType: "email", key: "k" },
          { type: "copy", displayText: "Copy", copyCode: "X" },
        ],
      }),
    ["buttons must hold a pix button alone"],
  );
  invalid(
    () =>
      SendButtonsMessageDto.from({
        number: "5511999999999",
        buttons: [
          { type: "call", displayText: "Call" },
          { type: "pix", currency: "BRL", keyType: "iban" as "email", key: "k" },
          { type: "link" as "url" },
        ],
      }),
    [
      "buttons[0].phoneNumber is required",
      "buttons[1].name is required",
      'buttons[1].keyType must be one of "phone", "email", "cpf", "cnpj", "random"',
      'buttons[2].type must be one of "reply", "copy", "url", "call", "pix"',
      "buttons must hold a pix button alone",
    ],
  );
  invalid(() => SendButtonsMessageDto.from({ number: "5511999999999", buttons: [] }), [
    "buttons must have at least 1 item",
  ]);
});

Deno.test("SendStatusMessageDto: text needs font 1–5 and a colour; media needs a URL; recipients needed", () => {
  invalid(
    () => SendStatusMessageDto.from({ type: "text", content: "Hi", font: 0, backgroundColor: "green" }),
    [
      'backgroundColor must be a colour like "#008000"',
      "font must be between 1 and 5",
      "statusJidList must list at least one recipient unless allContacts is true",
    ],
  );
  invalid(() => SendStatusMessageDto.from({ type: "text", content: "Hi", allContacts: true }), [
    "backgroundColor is required",
    "font is required",
  ]);
  invalid(
    () => SendStatusMessageDto.from({ type: "image", content: "hello there", statusJidList: ["abc"] }),
    [
      BAD_NUMBER("abc", "statusJidList[0]"),
      "content must be an http(s) URL or raw base64",
    ],
  );
  invalid(() => SendStatusMessageDto.from({ type: "poll" as "text", content: "x", statusJidList: [] }), [
    'type must be one of "text", "image", "audio", "video"',
    "statusJidList must list at least one recipient unless allContacts is true",
  ]);
});

Deno.test("SendTemplateMessageDto: name, language and object components", () => {
  invalid(
    () =>
      SendTemplateMessageDto.from({
        number: "5511999999999",
        name: "",
        language: "",
        components: [1 as never],
      }),
    [
      "name must not be empty",
      "language must not be empty",
      "components[0] must be an object",
    ],
  );
});
