import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { digestSha256, HmacSha256, sha256, sha256Hex, SYNC_HASH_MAX_BYTES } from "../../src/util/sha256.ts";
import { sendFingerprint } from "../../src/store/idempotency.ts";

async function subtleHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

Deno.test("sha256Hex gives the FIPS 180-4 test vectors", () => {
  strictEqual(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  strictEqual(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  strictEqual(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256Hex equals crypto.subtle's SHA-256 at every padding boundary and for UTF-8 text", async () => {
  // 55/56 and 63/64/65 bytes: the length field fits in the last block or needs one more.
  for (const length of [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000]) {
    const text = Array.from({ length }, (_, i) => String.fromCharCode(32 + (i * 7) % 90)).join("");
    strictEqual(sha256Hex(text), await subtleHex(text), `length ${length}`);
  }
  const utf8 = "ação 😀 Olá, 世界";
  strictEqual(sha256Hex(utf8), await subtleHex(utf8));
});

Deno.test("a send's fingerprint is the SHA-256 of its route and canonical body, as stored claims hold it", async () => {
  const body = { text: "hi", number: "5511999999999", options: { quoted: { key: { id: "A" } }, delay: 0 } };
  strictEqual(
    sendFingerprint("/message/sendText/{instance}", body),
    await subtleHex(
      '/message/sendText/{instance}\n{"number":"5511999999999","options":{"delay":0,"quoted":{"key":{"id":"A"}}},"text":"hi"}',
    ),
  );
});

function bytesOf(length: number, seed: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed * 7 + (i >> 3)) & 0xff);
}

Deno.test("sha256 and digestSha256 equal crypto.subtle's SHA-256 of bytes at every block boundary, here and above the limit", async () => {
  for (
    const length of [
      0,
      1,
      55,
      56,
      63,
      64,
      65,
      119,
      120,
      127,
      128,
      2200,
      SYNC_HASH_MAX_BYTES,
      SYNC_HASH_MAX_BYTES + 1,
    ]
  ) {
    const bytes = bytesOf(length, length);
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    deepStrictEqual(sha256(bytes), expected, `sha256, length ${length}`);
    deepStrictEqual(await digestSha256(bytes), expected, `digestSha256, length ${length}`);
  }
});

Deno.test("HmacSha256 equals crypto.subtle's HMAC-SHA256 for short, block-sized and long keys, here and above the limit", async () => {
  for (const keyLength of [1, 20, 63, 64, 65, 200]) {
    const material = bytesOf(keyLength, 99);
    const subtleKey = await crypto.subtle.importKey(
      "raw",
      material,
      { name: "HMAC", hash: "SHA-256" },
      false,
      [
        "sign",
      ],
    );
    const key = new HmacSha256(material);
    for (const length of [0, 1, 55, 56, 64, 119, 120, 2200, SYNC_HASH_MAX_BYTES, SYNC_HASH_MAX_BYTES + 1]) {
      const content = bytesOf(length, keyLength);
      const expected = new Uint8Array(await crypto.subtle.sign("HMAC", subtleKey, content));
      deepStrictEqual(await key.sign(content), expected, `key ${keyLength}, content ${length}`);
      deepStrictEqual(key.signHere(content), expected, `signHere, key ${keyLength}, content ${length}`);
    }
  }
});

Deno.test('HmacSha256 gives RFC 4231\'s test case 2 (key "Jefe")', () => {
  const encoder = new TextEncoder();
  const mac = new HmacSha256(encoder.encode("Jefe")).signHere(encoder.encode("what do ya want for nothing?"));
  strictEqual(
    Array.from(mac, (byte) => byte.toString(16).padStart(2, "0")).join(""),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});
