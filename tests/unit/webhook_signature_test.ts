import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { SYNC_HASH_MAX_BYTES } from "../../src/util/sha256.ts";
import { ConfigurationException } from "../../src/errors.ts";
import {
  fromBase64,
  hexEquals,
  isHex,
  timingSafeEqual,
  toBase64,
  toBase64Url,
  toHex,
} from "../../src/webhooks/encoding.ts";
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  type WebhookRejectReason,
  type WebhookSignatureOptions,
  WebhookVerificationException,
  WebhookVerifier,
} from "../../src/webhooks/signature.ts";

const NOW = 1_760_000_000_000;
const NOW_S = NOW / 1000;
const SECRET = "test-secret-1";
const BODY = new TextEncoder().encode(
  '{"event":"messages.upsert","instance":"sales","data":{"text":"olá 👋"}}',
);

async function hmacHex(secret: string, content: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, content as Uint8Array<ArrayBuffer>)));
}

async function refused(
  promise: Promise<unknown>,
  reason: WebhookRejectReason,
  secrets: string[] = [SECRET],
): Promise<WebhookVerificationException> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  ok(caught instanceof WebhookVerificationException, `expected a refusal (${reason}), got ${String(caught)}`);
  strictEqual(caught.reason, reason, caught.message);
  strictEqual(caught.status, 401);
  ok(caught.message.startsWith("Cannot verify webhook: "), caught.message);
  for (const secret of secrets) {
    strictEqual(caught.message.includes(secret), false, "secret leaked in message");
  }
  return caught;
}

function verify(
  body: Uint8Array,
  headers: Record<string, string>,
  options: WebhookSignatureOptions,
  now = NOW,
) {
  return new WebhookVerifier(options).verify(body, new Headers(headers), now);
}

// --- hmac

Deno.test("hmac: a signed body with a timestamp verifies", async () => {
  const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S });
  deepStrictEqual(Object.keys(headers).sort(), [
    "content-type",
    "x-gateway-signature",
    "x-gateway-timestamp",
  ]);
  ok(headers["x-gateway-signature"].startsWith("sha256="));
  deepStrictEqual(await verify(BODY, headers, { secret: SECRET }), {
    scheme: "hmac",
    secretIndex: 0,
    timestamp: NOW_S,
  });
});

Deno.test("hmac: plain hex of the body alone, upper case, no prefix, in each accepted header", async () => {
  const hex = await hmacHex(SECRET, BODY);
  for (const name of ["x-gateway-signature", "x-webhook-signature", "x-signature"]) {
    for (const value of [hex, hex.toUpperCase(), `sha256=${hex}`, `SHA256=${hex}`, ` ${hex} `]) {
      deepStrictEqual(await verify(BODY, { [name]: value }, { secret: SECRET }), {
        scheme: "hmac",
        secretIndex: 0,
      });
    }
  }
});

Deno.test("hmac: the signed content with a timestamp is `<timestamp>.<body>`", async () => {
  const content = new TextEncoder().encode(`${NOW_S}.${new TextDecoder().decode(BODY)}`);
  const hex = await hmacHex(SECRET, content);
  const result = await verify(BODY, { "x-gateway-signature": hex, "x-gateway-timestamp": String(NOW_S) }, {
    secret: SECRET,
  });
  strictEqual(result.timestamp, NOW_S);
  // The same signature without its timestamp does not verify.
  await refused(verify(BODY, { "x-gateway-signature": hex }, { secret: SECRET }), "signature_mismatch");
});

Deno.test("hmac: a custom header is the only one read", async () => {
  const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S, header: "X-Hub-Sig" });
  ok("x-hub-sig" in headers);
  await verify(BODY, headers, { scheme: "hmac", secret: SECRET, header: "X-Hub-Sig" });
  const standardName = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S });
  await refused(
    verify(BODY, standardName, { scheme: "hmac", secret: SECRET, header: "x-hub-sig" }),
    "missing_signature",
  );
});

Deno.test("hmac: wrong secret, tampered body, re-serialised JSON are refused with a hint", async () => {
  const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S });
  await refused(verify(BODY, headers, { secret: "other-secret" }), "signature_mismatch", [
    SECRET,
    "other-secret",
  ]);
  const tampered = BODY.slice();
  tampered[10] ^= 1;
  await refused(verify(tampered, headers, { secret: SECRET }), "signature_mismatch");
  const reserialised = new TextEncoder().encode(
    JSON.stringify(JSON.parse(new TextDecoder().decode(BODY)), null, 1),
  );
  const error = await refused(verify(reserialised, headers, { secret: SECRET }), "signature_mismatch");
  ok(error.message.includes("exact raw bytes"), error.message);
  ok(error.message.includes("whitespace"), error.message);
});

Deno.test("hmac: stale and future timestamps are refused, the edges of the window pass", async () => {
  for (const [offset, reason] of [[-301, "timestamp_too_old"], [301, "timestamp_in_future"]] as const) {
    const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S + offset });
    const error = await refused(verify(BODY, headers, { secret: SECRET }), reason);
    ok(error.message.includes(String(NOW_S + offset)));
  }
  for (const offset of [-300, 300]) {
    const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S + offset });
    await verify(BODY, headers, { secret: SECRET });
  }
  const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S - 50 });
  await refused(verify(BODY, headers, { secret: SECRET, toleranceSeconds: 10 }), "timestamp_too_old");
  const ms = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW });
  const error = await refused(verify(BODY, ms, { secret: SECRET }), "timestamp_in_future");
  ok(error.message.includes("in ms instead of s"));
});

Deno.test("hmac: rotated secrets: the old and the new one both verify and report which matched", async () => {
  const options = { secret: ["new-secret", "old-secret"] };
  const byOld = await signWebhook({ body: BODY, secret: "old-secret", timestamp: NOW_S });
  const byNew = await signWebhook({ body: BODY, secret: "new-secret", timestamp: NOW_S });
  strictEqual((await verify(BODY, byOld, options)).secretIndex, 1);
  strictEqual((await verify(BODY, byNew, options)).secretIndex, 0);
  const byRetired = await signWebhook({ body: BODY, secret: "retired-secret", timestamp: NOW_S });
  await refused(verify(BODY, byRetired, options), "signature_mismatch", ["new-secret", "old-secret"]);
});

Deno.test("hmac: malformed signatures and timestamps", async () => {
  const hex = await hmacHex(SECRET, BODY);
  for (
    const value of ["", "zz", hex.slice(2), `${hex}00`, `sha1=${hex}`, hex.replace(/^../, "g0"), "sha256="]
  ) {
    await refused(verify(BODY, { "x-gateway-signature": value }, { secret: SECRET }), "malformed_signature");
  }
  for (const stamp of ["abc", "1.5", "-1", "", "1e9", "99999999999999"]) {
    await refused(
      verify(BODY, { "x-gateway-signature": hex, "x-gateway-timestamp": stamp }, { secret: SECRET }),
      "malformed_timestamp",
    );
  }
  await refused(verify(BODY, {}, { secret: SECRET }), "missing_signature");
  await refused(
    verify(BODY, { "x-gateway-signature": hex }, { secret: SECRET, requireTimestamp: true }),
    "missing_timestamp",
  );
});

Deno.test("hmac: emoji and invalid UTF-8 bodies verify over the raw bytes", async () => {
  const emoji = new TextEncoder().encode('{"event":"messages.upsert","data":{"text":"👍🏽 família ☕"}}');
  const emojiHeaders = await signWebhook({ body: emoji, secret: SECRET, timestamp: NOW_S });
  await verify(emoji, emojiHeaders, { secret: SECRET });
  await verifyWebhook(new TextDecoder().decode(emoji), emojiHeaders, { signature: { secret: SECRET } }, NOW);

  const invalid = new Uint8Array([
    ...new TextEncoder().encode('{"event":"call","data":"'),
    0xff,
    0xfe,
    0xc3,
    0x22,
    0x7d,
  ]);
  const headers = await signWebhook({ body: invalid, secret: SECRET, timestamp: NOW_S });
  await verify(invalid, headers, { secret: SECRET });
  await verifyWebhook(invalid.buffer, headers, { signature: { secret: SECRET } }, NOW);
  await verifyWebhook(new DataView(invalid.buffer), headers, { signature: { secret: SECRET } }, NOW);
  // Decoding first replaces the invalid bytes, so the text no longer matches the signature.
  await refused(
    verifyWebhook(new TextDecoder().decode(invalid), headers, { signature: { secret: SECRET } }, NOW),
    "signature_mismatch",
  );
});

// --- standard

const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

Deno.test("standard: the Standard Webhooks reference vector verifies", async () => {
  const payload = new TextEncoder().encode('{"test": 2432232314}');
  const headers = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  };
  deepStrictEqual(await verify(payload, headers, { scheme: "standard", secret: WHSEC }, 1614265330_000), {
    scheme: "standard",
    secretIndex: 0,
    id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    timestamp: 1614265330,
  });
  const signed = await signWebhook({
    body: payload,
    secret: WHSEC,
    scheme: "standard",
    id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
    timestamp: 1614265330,
  });
  strictEqual(signed["webhook-signature"], headers["webhook-signature"]);
});

Deno.test("standard: several signatures in the header, rotation, unknown versions ignored", async () => {
  const good = await signWebhook({
    body: BODY,
    secret: WHSEC,
    scheme: "standard",
    id: "msg_1",
    timestamp: NOW_S,
  });
  const other = generateWebhookSecret("standard");
  const bad = await signWebhook({
    body: BODY,
    secret: other,
    scheme: "standard",
    id: "msg_1",
    timestamp: NOW_S,
  });
  const header = `v1a,abcd ${bad["webhook-signature"]} ${good["webhook-signature"]}`;
  const result = await verify(BODY, { ...good, "webhook-signature": header }, {
    scheme: "standard",
    secret: WHSEC,
  });
  strictEqual(result.id, "msg_1");
  strictEqual((await verify(BODY, good, { scheme: "standard", secret: [other, WHSEC] })).secretIndex, 1);
  // A secret without the whsec_ prefix is the same base64 key.
  await verify(BODY, good, { scheme: "standard", secret: WHSEC.slice(6) });
  await refused(verify(BODY, good, { scheme: "standard", secret: other }), "signature_mismatch", [
    WHSEC,
    other,
  ]);
});

Deno.test("standard: stale, future, tampered id, malformed and missing headers", async () => {
  const options = { scheme: "standard" as const, secret: WHSEC };
  const stale = await signWebhook({ body: BODY, secret: WHSEC, scheme: "standard", timestamp: NOW_S - 301 });
  await refused(verify(BODY, stale, options), "timestamp_too_old", [WHSEC]);
  const future = await signWebhook({ body: BODY, secret: WHSEC, scheme: "standard", timestamp: NOW_S + 301 });
  await refused(verify(BODY, future, options), "timestamp_in_future", [WHSEC]);
  const good = await signWebhook({ body: BODY, secret: WHSEC, scheme: "standard", timestamp: NOW_S });
  await refused(verify(BODY, { ...good, "webhook-id": "msg_other" }, options), "signature_mismatch", [WHSEC]);
  for (const signature of ["", "v1,", "v1,!!!", "v2,abcd", "v1,YWJj", "v1"]) {
    await refused(verify(BODY, { ...good, "webhook-signature": signature }, options), "malformed_signature", [
      WHSEC,
    ]);
  }
  const { "webhook-id": _id, ...noId } = good;
  await refused(verify(BODY, noId, options), "missing_signature", [WHSEC]);
  await refused(verify(BODY, { ...good, "webhook-id": "x".repeat(257) }, options), "missing_signature", [
    WHSEC,
  ]);
  const { "webhook-timestamp": _ts, ...noTimestamp } = good;
  await refused(verify(BODY, noTimestamp, options), "missing_timestamp", [WHSEC]);
  await refused(verify(BODY, { ...good, "webhook-timestamp": "soon" }, options), "malformed_timestamp", [
    WHSEC,
  ]);
  throws(
    () => new WebhookVerifier({ scheme: "standard", secret: "whsec_not base64!" }),
    ConfigurationException,
  );
});

// --- jwt

function jwtWith(header: unknown, claims: unknown, signature = "c2ln"): string {
  const part = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  return `Bearer ${part(header)}.${part(claims)}.${signature}`;
}

async function signedJwt(secret: string, header: unknown, claims: unknown): Promise<string> {
  const part = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${part(header)}.${part(claims)}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(input)));
  return `Bearer ${input}.${toBase64Url(signature)}`;
}

Deno.test("jwt: the server's token (HS256, iat, exp = iat + 600, app, action) verifies", async () => {
  const claims = { iat: NOW_S - 5, exp: NOW_S + 595, app: "evolution", action: "webhook" };
  const authorization = await signedJwt("jwt-key", { alg: "HS256", typ: "JWT" }, claims);
  deepStrictEqual(await verify(BODY, { authorization }, { scheme: "jwt", secret: "jwt-key" }), {
    scheme: "jwt",
    secretIndex: 0,
    timestamp: NOW_S - 5,
  });
  const lower = authorization.replace("Bearer", "bearer");
  await verify(BODY, { authorization: lower }, { scheme: "jwt", secret: "jwt-key" });
  const signed = await signWebhook({ body: BODY, secret: "jwt-key", scheme: "jwt", timestamp: NOW_S });
  await verify(BODY, signed, { scheme: "jwt", secret: "jwt-key" });
  await verify(BODY, signed, { scheme: "jwt", secret: ["new-key", "jwt-key"] });
});

Deno.test("jwt: alg none, other algorithms and crit are refused before any signature check", async () => {
  const claims = { iat: NOW_S, exp: NOW_S + 600 };
  for (const alg of ["none", "HS512", "RS256", "hs256", undefined]) {
    await refused(
      verify(BODY, { authorization: jwtWith({ alg, typ: "JWT" }, claims, "") }, {
        scheme: "jwt",
        secret: "jwt-key",
      }),
      alg === "none" || alg === undefined ? "unsupported_algorithm" : "unsupported_algorithm",
      ["jwt-key"],
    );
  }
  await refused(
    verify(BODY, { authorization: jwtWith({ alg: "HS256", crit: ["x"] }, claims) }, {
      scheme: "jwt",
      secret: "jwt-key",
    }),
    "unsupported_algorithm",
    ["jwt-key"],
  );
});

Deno.test("jwt: past its window, issued in the future, not yet valid, wrong key", async () => {
  const options = { scheme: "jwt" as const, secret: "jwt-key" };
  const header = { alg: "HS256", typ: "JWT" };
  const server = (iat: number, extra: Record<string, unknown> = {}) => ({
    iat,
    exp: iat + 600,
    app: "evolution",
    action: "webhook",
    ...extra,
  });
  // The server's retries reuse the token: accepted for jwtMaxAgeSeconds (1800) + the leeway from iat.
  const old = await signedJwt("jwt-key", header, server(NOW_S - 1831));
  await refused(verify(BODY, { authorization: old }, options), "timestamp_too_old", ["jwt-key"]);
  const leeway = await signedJwt("jwt-key", header, server(NOW_S - 1830));
  await verify(BODY, { authorization: leeway }, options);
  const future = await signedJwt("jwt-key", header, server(NOW_S + 31));
  await refused(verify(BODY, { authorization: future }, options), "timestamp_in_future", ["jwt-key"]);
  const notYet = await signedJwt("jwt-key", header, server(NOW_S, { nbf: NOW_S + 100 }));
  await refused(verify(BODY, { authorization: notYet }, options), "timestamp_in_future", ["jwt-key"]);
  const otherKey = await signedJwt("other-key", header, server(NOW_S));
  const error = await refused(verify(BODY, { authorization: otherKey }, options), "signature_mismatch", [
    "jwt-key",
  ]);
  ok(error.message.includes("jwt_key"));
  await refused(
    verify(BODY, { authorization: leeway }, { ...options, jwtLeewaySeconds: 0 }),
    "timestamp_too_old",
    ["jwt-key"],
  );
});

Deno.test("jwt: malformed tokens and missing claims", async () => {
  const options = { scheme: "jwt" as const, secret: "jwt-key" };
  const good = await signedJwt("jwt-key", { alg: "HS256" }, {
    iat: NOW_S,
    exp: NOW_S + 600,
    app: "evolution",
    action: "webhook",
  });
  const token = good.slice(7);
  for (
    const value of ["", "Bearer", "Basic abc", token, `Bearer ${token}.x`, "Bearer a.b", "Bearer !!.!!.!!"]
  ) {
    await refused(verify(BODY, { authorization: value }, options), "malformed_signature", ["jwt-key"]);
  }
  const [head, claims] = token.split(".");
  await refused(
    verify(BODY, { authorization: `Bearer ${head}.${claims}.AAAA` }, options),
    "malformed_signature",
    [
      "jwt-key",
    ],
  );
  const notJson = `Bearer ${toBase64Url(new TextEncoder().encode("{"))}.${claims}.x`;
  await refused(verify(BODY, { authorization: notJson }, options), "malformed_signature", ["jwt-key"]);
  const noExp = await signedJwt("jwt-key", { alg: "HS256" }, { iat: NOW_S });
  await refused(verify(BODY, { authorization: noExp }, options), "malformed_timestamp", ["jwt-key"]);
  const stringExp = await signedJwt("jwt-key", { alg: "HS256" }, { iat: NOW_S, exp: String(NOW_S + 600) });
  await refused(verify(BODY, { authorization: stringExp }, options), "malformed_timestamp", ["jwt-key"]);
  await refused(verify(BODY, {}, options), "missing_signature", ["jwt-key"]);
});

// --- token and none

Deno.test("token: the configured header must hold the secret exactly", async () => {
  const options = { scheme: "token" as const, secret: "tok-123", header: "x-api-token" };
  deepStrictEqual(await verify(BODY, { "x-api-token": "tok-123" }, options), {
    scheme: "token",
    secretIndex: 0,
  });
  const signed = await signWebhook({ body: BODY, secret: "tok-123", scheme: "token", header: "x-api-token" });
  await verify(BODY, signed, options);
  for (const value of ["tok-12", "tok-1234", "TOK-123", "", "tok-123x"]) {
    await refused(verify(BODY, { "x-api-token": value }, options), "signature_mismatch", ["tok-123"]);
  }
  await refused(verify(BODY, {}, options), "missing_signature", ["tok-123"]);
  strictEqual(
    (await verify(BODY, { "x-gateway-token": "b" }, { scheme: "token", secret: ["a", "b"] })).secretIndex,
    1,
  );
  await verify(BODY, { authorization: "Bearer tok-123" }, {
    scheme: "token",
    secret: "tok-123",
    header: "authorization",
  });
});

Deno.test("none: every request passes, with no secret needed", async () => {
  deepStrictEqual(await verify(BODY, {}, { scheme: "none" }), { scheme: "none", secretIndex: -1 });
  deepStrictEqual(await signWebhook({ body: BODY, secret: "", scheme: "none" }), {
    "content-type": "application/json",
  });
});

// --- configuration

Deno.test("no secret: every scheme but none fails closed with a clear reason", async () => {
  for (const scheme of ["hmac", "standard", "jwt", "token"] as const) {
    const verifier = new WebhookVerifier({ scheme });
    strictEqual(verifier.hasSecret, false);
    const headers = await signWebhook({
      body: BODY,
      secret: scheme === "standard" ? WHSEC : "x-secret",
      scheme,
    });
    const error = await refused(verifier.verify(BODY, new Headers(headers), NOW), "no_secret");
    ok(error.message.includes("GATEWAY_WEBHOOK_SECRET"));
  }
});

Deno.test("visibly wrong configuration throws at creation, never showing the secret", () => {
  const cases: [WebhookSignatureOptions, RegExp][] = [
    [{ secret: "" }, /it is empty/],
    [{ secret: [] }, /array of secrets is empty/],
    [{ secret: " padded-secret" }, /leading or trailing whitespace/],
    [{ secret: ["ok-secret", "padded-secret\n"] }, /secret #2: it has leading or trailing whitespace/],
    [{ secret: 5 as unknown as string }, /expected a string/],
    [{ secret: "s", toleranceSeconds: NaN }, /toleranceSeconds" must be a non-negative number, got "NaN"/],
    [{ secret: "s", toleranceSeconds: -1 }, /toleranceSeconds/],
    [{ secret: "s", scheme: "hmac256" as "hmac" }, /unknown signature scheme "hmac256"/],
    [{ secret: "s", header: "bad header" }, /not a header name/],
    [{ secret: "s", header: "x-sig" }, /"signature.header" applies to one scheme; set "signature.scheme"/],
    [{ secret: "whsec_padded-secret!" }, /a Standard Webhooks secret is "whsec_" followed by base64/],
    [{ scheme: "standard", secret: "padded-secret" }, /a Standard Webhooks secret is "whsec_"/],
  ];
  for (const [options, pattern] of cases) {
    const error = throws(() => new WebhookVerifier(options), (e: unknown) => {
      ok(e instanceof ConfigurationException);
      ok(pattern.test(e.message), e.message);
      ok(!e.message.includes("padded-secret"), e.message);
      return true;
    });
    strictEqual(error, undefined);
  }
});

Deno.test("verifyWebhook: a parsed body is refused with a hint; headers may be a plain record", async () => {
  const headers = await signWebhook({ body: BODY, secret: SECRET, timestamp: NOW_S });
  const parsed = JSON.parse(new TextDecoder().decode(BODY));
  const error = await refused(
    verifyWebhook(parsed, headers, { signature: { secret: SECRET } }, NOW),
    "invalid_body",
  );
  ok(error.message.includes("not a parsed JSON value"), error.message);
  const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
  strictEqual((await verifyWebhook(BODY, upper, { signature: { secret: SECRET } }, NOW)).scheme, "hmac");
  await rejects(verifyWebhook(BODY, headers, { signature: { secret: "" } }, NOW), /it is empty/);
  await rejects(
    verifyWebhook(BODY, headers, {} as never, NOW),
    /expects { signature: { scheme, secret, ... } }/,
  );
  await rejects(
    verifyWebhook(BODY, headers, { secret: SECRET } as never, NOW),
    /verifyWebhook: "secret" is not an option; did you mean "signature.secret"\?/,
  );
});

Deno.test("keys are imported once per verifier; verifyWebhook reuses one verifier for options written inline", async () => {
  // A body over SYNC_HASH_MAX_BYTES is signed by Web Crypto, whose key imports are counted here.
  const BODY = new TextEncoder().encode(JSON.stringify({
    event: "messages.upsert",
    instance: "cache",
    data: { text: "x".repeat(SYNC_HASH_MAX_BYTES) },
  }));
  const subtle = crypto.subtle as SubtleCrypto & { importKey: SubtleCrypto["importKey"] };
  const original = subtle.importKey;
  let imports = 0;
  subtle.importKey = ((...args: Parameters<SubtleCrypto["importKey"]>) => {
    imports++;
    return original.apply(subtle, args);
  }) as SubtleCrypto["importKey"];
  try {
    const secret = `cache-${crypto.randomUUID()}`;
    const headers = await signWebhook({ body: BODY, secret, timestamp: NOW_S });
    strictEqual(imports, 1); // signing imports its own key
    const options = { secret };
    const verifier = new WebhookVerifier(options);
    for (let i = 0; i < 20; i++) {
      await verifier.verify(BODY, new Headers(headers), NOW);
      await verifyWebhook(BODY, headers, { signature: options }, NOW);
      await verifyWebhook(BODY, headers, { signature: { secret } }, NOW);
    }
    // One for the verifier, one for the verifier verifyWebhook keeps for these settings.
    strictEqual(imports, 3);
    // Other settings are another verifier; a wrong one is refused every time, never cached.
    await verifyWebhook(BODY, headers, { signature: { secret, toleranceSeconds: 600 } }, NOW);
    strictEqual(imports, 4);
    for (let i = 0; i < 2; i++) {
      await rejects(
        verifyWebhook(BODY, headers, { signature: { secret, tolerance: 5 } } as never, NOW),
        /tolerance/,
      );
    }
  } finally {
    subtle.importKey = original;
  }
});

Deno.test("encoding helpers round-trip and compare in constant time", () => {
  const bytes = crypto.getRandomValues(new Uint8Array(33));
  bytes[0] = 0x05; // the hex starts with "0": see the non-ASCII case below
  const hex = toHex(bytes);
  strictEqual(hex.length, 66);
  strictEqual(isHex(hex) && isHex(hex.toUpperCase()), true);
  strictEqual(isHex("0g"), false);
  strictEqual(isHex("0\u0130"), false);
  strictEqual(hexEquals(hex, bytes), true);
  strictEqual(hexEquals(hex.toUpperCase(), bytes), true);
  strictEqual(hexEquals(hex.slice(2), bytes), false);
  strictEqual(hexEquals(`${hex}00`, bytes), false);
  strictEqual(hexEquals(`${hex.slice(0, 65)}${hex[65] === "0" ? "1" : "0"}`, bytes), false);
  // A character above 127 whose low bits spell a hex digit ("\u00b0" & 127 is "0") is still no digit.
  strictEqual(hexEquals(`\u00b0${hex.slice(1)}`, bytes), false);
  deepStrictEqual(fromBase64(toBase64(bytes)), bytes);
  strictEqual(fromBase64("a"), null);
  strictEqual(fromBase64("a b"), null);
  strictEqual(timingSafeEqual(bytes, bytes.slice()), true);
  strictEqual(timingSafeEqual(bytes.subarray(1), bytes), false);
  strictEqual(timingSafeEqual(new Uint8Array(0), new Uint8Array(0)), true);
  const changed = bytes.slice();
  changed[32] ^= 1;
  strictEqual(timingSafeEqual(changed, bytes), false);
  strictEqual(generateWebhookSecret().length, 64);
  ok(generateWebhookSecret("standard").startsWith("whsec_"));
});

// --- auto (the default)

const AUTO_SECRET = "auto-secret-0123456789-abcdefghij";

Deno.test("auto (default): the JWT, hmac and Standard Webhooks signatures each verify with the one secret", async () => {
  strictEqual(new WebhookVerifier({ secret: AUTO_SECRET }).scheme, "auto");
  const jwt = await signWebhook({ body: BODY, secret: AUTO_SECRET, scheme: "jwt", timestamp: NOW_S });
  deepStrictEqual(await verify(BODY, jwt, { secret: AUTO_SECRET }), {
    scheme: "jwt",
    secretIndex: 0,
    timestamp: NOW_S,
  });
  const hmacSigned = await signWebhook({ body: BODY, secret: AUTO_SECRET, timestamp: NOW_S });
  deepStrictEqual(await verify(BODY, hmacSigned, { secret: AUTO_SECRET }), {
    scheme: "hmac",
    secretIndex: 0,
    timestamp: NOW_S,
  });
  const plain = await signWebhook({ body: BODY, secret: AUTO_SECRET, timestamp: false });
  deepStrictEqual(await verify(BODY, plain, { secret: AUTO_SECRET }), { scheme: "hmac", secretIndex: 0 });
  // A whsec_ secret serves all three; with a rotation, the index says which secret matched.
  const standard = await signWebhook({
    body: BODY,
    secret: WHSEC,
    scheme: "standard",
    id: "msg_a",
    timestamp: NOW_S,
  });
  deepStrictEqual(await verify(BODY, standard, { secret: [AUTO_SECRET, WHSEC] }), {
    scheme: "standard",
    secretIndex: 1,
    id: "msg_a",
    timestamp: NOW_S,
  });
  const jwtWhsec = await signWebhook({ body: BODY, secret: WHSEC, scheme: "jwt", timestamp: NOW_S });
  strictEqual((await verify(BODY, jwtWhsec, { secret: [AUTO_SECRET, WHSEC] })).secretIndex, 1);
});

Deno.test("auto: no signature, a token, or a bare secret in Authorization are refused (never none, never token)", async () => {
  const error = await refused(verify(BODY, {}, { secret: AUTO_SECRET }), "missing_signature", [AUTO_SECRET]);
  strictEqual(
    error.message,
    'Cannot verify webhook: no signature: expected "authorization: Bearer <JWT>" (the server\'s jwt_key), ' +
      '"x-gateway-signature" or the Standard Webhooks headers ("webhook-id", "webhook-timestamp", "webhook-signature")',
  );
  await refused(
    verify(BODY, { "x-gateway-token": AUTO_SECRET }, { secret: AUTO_SECRET }),
    "missing_signature",
    [
      AUTO_SECRET,
    ],
  );
  await refused(
    verify(BODY, { authorization: `Bearer ${AUTO_SECRET}` }, { secret: AUTO_SECRET }),
    "malformed_signature",
    [AUTO_SECRET],
  );
  await refused(
    verify(BODY, { authorization: AUTO_SECRET }, { secret: AUTO_SECRET }),
    "malformed_signature",
    [
      AUTO_SECRET,
    ],
  );
  // No secret: fails closed, like every scheme but none.
  await refused(new WebhookVerifier({}).verify(BODY, new Headers(), NOW), "no_secret");
});

Deno.test("auto: forged, stripped, swapped, wrong-secret, expired and alg=none requests never pass", async () => {
  const secret = AUTO_SECRET;
  const options = { secret };
  const jwt = await signWebhook({ body: BODY, secret, scheme: "jwt", timestamp: NOW_S });
  const token = jwt.authorization.slice("Bearer ".length);
  const [head, claims, signature] = token.split(".");
  const hmacSigned = await signWebhook({ body: BODY, secret, timestamp: NOW_S });
  const cases: [string, Uint8Array, Record<string, string>, WebhookRejectReason][] = [
    [
      "wrong secret, jwt",
      BODY,
      await signWebhook({ body: BODY, secret: "other-secret-0123456789", scheme: "jwt", timestamp: NOW_S }),
      "signature_mismatch",
    ],
    [
      "wrong secret, hmac",
      BODY,
      await signWebhook({ body: BODY, secret: "other-secret", timestamp: NOW_S }),
      "signature_mismatch",
    ],
    ["forged jwt signature", BODY, {
      authorization: `Bearer ${head}.${claims}.${toBase64Url(new Uint8Array(32))}`,
    }, "signature_mismatch"],
    ["jwt claims changed", BODY, {
      authorization: `Bearer ${head}.${
        toBase64Url(
          new TextEncoder().encode(
            JSON.stringify({ iat: NOW_S - 1, exp: NOW_S + 599, app: "evolution", action: "webhook" }),
          ),
        )
      }.${signature}`,
    }, "signature_mismatch"],
    ["alg none, no signature", BODY, {
      authorization: jwtWith({ alg: "none", typ: "JWT" }, { iat: NOW_S, exp: NOW_S + 600 }, ""),
    }, "unsupported_algorithm"],
    ["alg none, the HS256 signature kept", BODY, {
      authorization: `Bearer ${
        toBase64Url(new TextEncoder().encode('{"alg":"none"}'))
      }.${claims}.${signature}`,
    }, "unsupported_algorithm"],
    [
      "expired jwt",
      BODY,
      await signWebhook({ body: BODY, secret, scheme: "jwt", timestamp: NOW_S - 1831 }),
      "timestamp_too_old",
    ],
    [
      "stale hmac",
      BODY,
      await signWebhook({ body: BODY, secret, timestamp: NOW_S - 301 }),
      "timestamp_too_old",
    ],
    [
      "hmac stripped of its timestamp",
      BODY,
      { "x-gateway-signature": hmacSigned["x-gateway-signature"] },
      "signature_mismatch",
    ],
    [
      "tampered body under hmac",
      new TextEncoder().encode('{"event":"messages.upsert","instance":"other"}'),
      hmacSigned,
      "signature_mismatch",
    ],
    // The JWT's signature is the HMAC of `<head>.<claims>`: it must not pass as an hmac signature of that text.
    ["jwt signature as an hmac body signature", new TextEncoder().encode(`${head}.${claims}`), {
      "x-gateway-signature": toHex(fromBase64Url(signature)),
    }, "invalid_body"],
    ["hmac signature in a jwt", BODY, {
      authorization: `Bearer ${head}.${claims}.${
        toBase64Url(hexBytes(hmacSigned["x-gateway-signature"].slice(7)))
      }`,
    }, "signature_mismatch"],
    // When a stronger signature is present and wrong, a valid weaker one does not rescue the request.
    ["bad standard beside a valid jwt", BODY, {
      ...jwt,
      "webhook-id": "msg_x",
      "webhook-timestamp": String(NOW_S),
      "webhook-signature": `v1,${toBase64(new Uint8Array(32))}`,
    }, "signature_mismatch"],
    [
      "bad hmac beside a valid jwt",
      BODY,
      { ...jwt, "x-gateway-signature": "0".repeat(64) },
      "signature_mismatch",
    ],
    [
      "standard headers with a plain secret",
      BODY,
      await signWebhook({ body: BODY, secret: WHSEC, scheme: "standard", timestamp: NOW_S }),
      "signature_mismatch",
    ],
  ];
  for (const [name, body, headers, reason] of cases) {
    const error = await refused(verify(body, headers, options), reason, [secret]);
    ok(!error.message.includes(signature), `${name}: the signature is echoed`);
  }
});

function fromBase64Url(text: string): Uint8Array {
  return fromBase64(
    text.replaceAll("-", "+").replaceAll("_", "/").padEnd(Math.ceil(text.length / 4) * 4, "="),
  )!;
}

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

Deno.test("auto: signWebhook refuses to sign for auto, which only verifies", async () => {
  await rejects(
    signWebhook({ body: BODY, secret: SECRET, scheme: "auto" }),
    (error: unknown) => error instanceof ConfigurationException && /"auto" only verifies/.test(error.message),
  );
});

Deno.test("verifyWebhook's reuse by content never mixes settings: each secret and shape is its own", async () => {
  const headers = await signWebhook({ body: BODY, secret: "a:b", timestamp: NOW_S });
  strictEqual((await verifyWebhook(BODY, headers, { signature: { secret: "a:b" } }, NOW)).secretIndex, 0);
  for (const secret of [["a", "b"], ["a:b:"], "a:b ".trim() + "x", ["x", "a:b"]]) {
    const verifying = verifyWebhook(BODY, headers, { signature: { secret } }, NOW);
    if (Array.isArray(secret) && secret.includes("a:b")) strictEqual((await verifying).secretIndex, 1);
    else await refused(verifying, "signature_mismatch", []);
  }
  // More configurations than are kept: every one still verifies by its own secret.
  for (let i = 0; i < 80; i++) {
    const secret = `rotating-${i}`;
    const signed = await signWebhook({ body: BODY, secret, timestamp: NOW_S });
    await verifyWebhook(BODY, signed, { signature: { secret } }, NOW);
    await refused(
      verifyWebhook(BODY, signed, { signature: { secret: `rotating-${i + 1}` } }, NOW),
      "signature_mismatch",
      [],
    );
  }
});

Deno.test("base64 signatures are read in their one canonical spelling only", async () => {
  // 32 bytes: 43 characters, the last one carries 4 bits and 2 unused ones.
  const standard = await signWebhook({
    body: BODY,
    secret: WHSEC,
    scheme: "standard",
    id: "msg_c",
    timestamp: NOW_S,
  });
  const value = standard["webhook-signature"].slice(3, -1); // without "v1," and "="
  const last = value.at(-1)!;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const sibling = alphabet[alphabet.indexOf(last) ^ 1]; // same 4 bits, another unused bit
  strictEqual(fromBase64(`${value.slice(0, -1)}${sibling}=`), null);
  await refused(
    verify(BODY, { ...standard, "webhook-signature": `v1,${value.slice(0, -1)}${sibling}=` }, {
      scheme: "standard",
      secret: WHSEC,
    }),
    "malformed_signature",
    [WHSEC],
  );
  await verify(BODY, standard, { scheme: "standard", secret: WHSEC });
});
