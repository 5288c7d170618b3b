import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { GatewayService, ValidationException, WebhookPayloadDto } from "../../mod.ts";
import { downloadMedia, MEDIA_SIZE_LIMITS, type MediaKind, toMediaInput } from "../../src/media/mod.ts";
import { sniffMimeType } from "../../src/media/sniff.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** A small file of each kind, starting with its format's magic number. */
const FILES: Record<MediaKind, { bytes: Uint8Array<ArrayBuffer>; mimetype: string }> = {
  image: {
    bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, ...ascii("JFIF"), 1, 2, 3]),
    mimetype: "image/jpeg",
  },
  audio: { bytes: new Uint8Array([...ascii("OggS"), 0, 2, 0, 0, 0, 0, 0, 0, 9, 9]), mimetype: "audio/ogg" },
  video: { bytes: new Uint8Array([0, 0, 0, 0x18, ...ascii("ftypisom"), 0, 0, 2, 0]), mimetype: "video/mp4" },
  document: { bytes: new Uint8Array(ascii("%PDF-1.4\n%\xe2\xe3\n1 0 obj")), mimetype: "application/pdf" },
  sticker: {
    bytes: new Uint8Array([...ascii("RIFF"), 24, 0, 0, 0, ...ascii("WEBPVP8 "), 1, 2, 3, 4]),
    mimetype: "image/webp",
  },
};

const KINDS = Object.keys(FILES) as MediaKind[];

function base64Of(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

Deno.test("toMediaInput: every input form of every kind becomes raw base64 with the sniffed MIME type", async () => {
  for (const kind of KINDS) {
    const { bytes, mimetype } = FILES[kind];
    const base64 = base64Of(bytes);
    const fileName = kind === "document" ? "invoice.pdf" : undefined;
    const forms: [string, Parameters<typeof toMediaInput>[0]][] = [
      ["bytes", bytes],
      ["ArrayBuffer", bytes.slice().buffer],
      ["Blob", new Blob([bytes])],
      ["File", new File([bytes], fileName ?? `${kind}.bin`)],
      ["data URI", `data:${mimetype};base64,${base64}`],
      ["data URI with a wrong declared type", `data:application/octet-stream;base64,${base64}`],
      ["raw base64", base64],
    ];
    for (const [form, source] of forms) {
      const input = await toMediaInput(source, { type: kind, fileName });
      strictEqual(input.media, base64, `${kind} ${form}`);
      strictEqual(input.mimetype, mimetype, `${kind} ${form}`);
      strictEqual(input.size, bytes.byteLength, `${kind} ${form}`);
      const expectedName = kind === "document" ? "invoice.pdf" : form === "File" ? `${kind}.bin` : undefined;
      strictEqual(input.fileName, expectedName, `${kind} ${form}`);
    }
    const url = await toMediaInput(`https://cdn.example.com/files/${kind}.x`, { type: kind });
    deepStrictEqual(
      url,
      kind === "document" ? { media: "https://cdn.example.com/files/document.x", fileName: "document.x" } : {
        media: `https://cdn.example.com/files/${kind}.x`,
      },
    );
  }
});

Deno.test("toMediaInput: a document keeps its file name; without one it gets one from the sniffed type", async () => {
  const pdf = FILES.document.bytes;
  strictEqual(
    (await toMediaInput(new File([pdf], "Q3 report.pdf"), { type: "document" })).fileName,
    "Q3 report.pdf",
  );
  strictEqual((await toMediaInput(pdf, { type: "document" })).fileName, "document.pdf");
  const docx = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 6, 0]);
  deepStrictEqual(await toMediaInput(docx, { type: "document", fileName: "cv.docx" }), {
    media: base64Of(docx),
    mimetype: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    fileName: "cv.docx",
    size: 8,
  });
  // Text has no magic number: the extension decides.
  strictEqual(
    (await toMediaInput(new TextEncoder().encode("a,b\n1,2\n"), { type: "document", fileName: "x.csv" }))
      .mimetype,
    "text/csv",
  );
});

Deno.test("toMediaInput: a file over WhatsApp's limit is refused before any request", async () => {
  const sim = newSim();
  sim.addInstance("sales", { open: true });
  const gw = new GatewayService({ server_url: "http://gateway.test", api_key: KEY, instance: "sales" }, {
    fetch: sim.fetch,
  });
  const big = new Uint8Array(MEDIA_SIZE_LIMITS.image + 1);
  big.set(FILES.image.bytes);
  await rejects(gw.messages().sendFile("5511999999999", big, { type: "image" }), (e: unknown) => {
    ok(e instanceof ValidationException);
    strictEqual(
      e.message,
      "Invalid image media: the file is 5.0 MB (5242881 bytes), over WhatsApp's 5.0 MB limit for an image",
    );
    return true;
  });
  // The size of base64 is known without decoding it.
  const sticker = new Uint8Array(MEDIA_SIZE_LIMITS.sticker + 3);
  sticker.set(FILES.sticker.bytes);
  await rejects(
    toMediaInput(base64Of(sticker.subarray(0, 60)) + "A".repeat(140_000), { type: "sticker" }),
    ValidationException,
  );
  await rejects(
    toMediaInput(new Blob([sticker]), { type: "sticker" }),
    /over WhatsApp's 100 KB limit for a sticker/,
  );
  strictEqual(sim.requests.length, 0);
  await sim.close();
});

Deno.test("toMediaInput: bytes that are not of the kind, and sources that are not media, are refused", async () => {
  await rejects(toMediaInput(FILES.document.bytes, { type: "image" }), {
    message: 'Invalid image media: the file is "application/pdf", which is not an image',
  });
  await rejects(toMediaInput(FILES.image.bytes, { type: "audio" }), {
    message: 'Invalid audio media: the file is "image/jpeg", which is not an audio',
  });
  await rejects(toMediaInput("not base64 at all!", { type: "image" }), {
    message: "Invalid image media: a string must be an http(s) URL, a data URI or raw base64",
  });
  await rejects(toMediaInput("data:image/png,rawtext", { type: "image" }), /must be base64-encoded/);
  await rejects(toMediaInput(new Uint8Array(0), { type: "document" }), {
    message: "Invalid document media: the file is empty",
  });
  await rejects(
    toMediaInput(FILES.image.bytes, { type: "gif" as MediaKind }),
    /"type" must be one of image, video, audio, document, sticker/,
  );
});

Deno.test("sniffMimeType knows the formats WhatsApp media uses", () => {
  const cases: [number[], string | undefined][] = [
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "image/png"],
    [ascii("GIF89a"), "image/gif"],
    [[...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WAVE")], "audio/wav"],
    [[0, 0, 0, 0x20, ...ascii("ftypM4A ")], "audio/mp4"],
    [[0, 0, 0, 0x20, ...ascii("ftyp3gp4")], "video/3gpp"],
    [ascii("ID3\x04"), "audio/mpeg"],
    [[0xff, 0xf1, 0x50], "audio/aac"],
    [[0xff, 0xfb, 0x90], "audio/mpeg"],
    [ascii("#!AMR\n"), "audio/amr"],
    [ascii("hello"), undefined],
  ];
  for (const [bytes, mime] of cases) strictEqual(sniffMimeType(new Uint8Array(bytes)), mime, String(bytes));
});

Deno.test("sendFile sends each kind on its route, and downloadMedia gets the same bytes back through the simulator", async () => {
  const sim = newSim();
  sim.addInstance("sales", { open: true });
  const gw = new GatewayService({ server_url: "http://gateway.test", api_key: KEY, instance: "sales" }, {
    fetch: sim.fetch,
  });
  for (const kind of KINDS) {
    const { bytes, mimetype } = FILES[kind];
    const res = await gw.messages().sendFile("5511999999999", new Blob([bytes]), {
      type: kind,
      fileName: kind === "document" ? "invoice.pdf" : undefined,
      caption: kind === "image" ? "Look" : undefined,
    });
    const id = res.json<string>("key.id");
    const request = sim.requests.at(-1)!;
    const route = { audio: "sendWhatsAppAudio", sticker: "sendSticker" }[kind as string] ?? "sendMedia";
    strictEqual(request.route, `POST /message/${route}`, kind);
    const body = request.body as Record<string, unknown>;
    if (route === "sendMedia") {
      deepStrictEqual(
        [body.mediatype, body.media, body.mimetype, body.fileName, body.caption],
        [
          kind,
          base64Of(bytes),
          mimetype,
          kind === "document" ? "invoice.pdf" : undefined,
          kind === "image" ? "Look" : undefined,
        ],
      );
    } else {
      strictEqual(body[kind], base64Of(bytes));
    }
    const file = await downloadMedia(gw, { key: { id } });
    deepStrictEqual(file.bytes, bytes, kind);
    if (kind === "document") {
      deepStrictEqual([file.fileName, file.mimetype], ["invoice.pdf", "application/pdf"]);
    }
  }
  await sim.close();
});

Deno.test("downloadMedia from a webhook payload uses the payload's instance; a text message is refused locally", async () => {
  const sim = newSim();
  sim.addInstance("support", { open: true });
  const gw = new GatewayService({ server_url: "http://gateway.test", api_key: KEY }, { fetch: sim.fetch });
  const sent = await gw.instance("support").messages().sendFile("5511999999999", FILES.image.bytes, {
    type: "image",
  });
  const id = sent.json<string>("key.id");
  const payload = WebhookPayloadDto.from({
    event: "messages.upsert",
    instance: "support",
    data: {
      key: { id, remoteJid: "5511999999999@s.whatsapp.net", fromMe: true },
      message: { imageMessage: { mimetype: "image/jpeg" } },
    },
  })!;
  const file = await downloadMedia(gw, payload);
  deepStrictEqual([file.bytes, file.mimetype, file.mediaType], [FILES.image.bytes, "image/jpeg", "image"]);
  const request = sim.requests.at(-1)!;
  strictEqual(request.path, "/chat/getBase64FromMediaMessage/support");
  const before = sim.requests.length;
  const text = WebhookPayloadDto.from({
    event: "messages.upsert",
    instance: "support",
    data: { key: { id: "ABC" }, message: { conversation: "hi" } },
  })!;
  await rejects(downloadMedia(gw, text), {
    message: 'Cannot download media: message "ABC" is not a media message (conversation)',
  });
  strictEqual(sim.requests.length, before);
  await sim.close();
});
