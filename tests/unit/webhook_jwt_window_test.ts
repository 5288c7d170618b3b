// The server's JWT outlives its `exp`: Evolution 2.3.6 signs one token per event (`iat`, `exp = iat + 600`,
// `app: "evolution"`, `action: "webhook"`) and sends it again with every retry for about twenty minutes.
// The receiver accepts it for `jwtMaxAgeSeconds` (default 1800) from `iat`, and refuses the tokens the server
// would never send.
import { deepStrictEqual, ok, rejects, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { toBase64Url } from "../../src/webhooks/encoding.ts";
import { optionsFromFile, WEBHOOK_KEYS } from "../../src/config_keys.ts";
import { webhookOptionsFromEnv } from "../../src/webhooks/env.ts";
import { createWebhookHandler, type WebhookHandlerOptions } from "../../src/webhooks/handler.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import type { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import {
  verifyWebhook,
  type WebhookSignatureOptions,
  WebhookVerificationException,
} from "../../src/webhooks/signature.ts";

const JWT_KEY = "jwt-key-of-the-instance-0123456789abcdef";
const IAT = 1_760_000_000;
const BODY = '{"event":"connection.update","instance":"sales","data":{"state":"open"}}';

/** A token made exactly as the server makes it (jsonwebtoken's header and the claims in the server's order). */
async function serverToken(claims: Record<string, unknown>, key = JWT_KEY): Promise<string> {
  const part = (value: unknown) => toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  const hmac = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode(input)));
  return `Bearer ${input}.${toBase64Url(signature)}`;
}

const serverClaims = (iat = IAT) => ({ iat, exp: iat + 600, app: "evolution", action: "webhook" });

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    ok(error instanceof WebhookVerificationException, String(error));
    strictEqual(error.message.includes(JWT_KEY), false);
    return error.reason;
  }
  return "accepted";
}

Deno.test("jwt window: the server's retries with the original token are accepted for 30 minutes from iat", async () => {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    let clock = IAT * 1000;
    const seen: WebhookPayloadDto[] = [];
    const processor = new WebhookProcessor({ log: false }).onAny((payload) => void seen.push(payload));
    const handler = createWebhookHandler({ signature: { secret: JWT_KEY }, processor, now: () => clock });
    const authorization = await serverToken(serverClaims());
    const post = () =>
      handler(
        new Request("http://127.0.0.1/gateway/webhook/sales", {
          method: "POST",
          headers: { "content-type": "application/json", authorization },
          body: BODY,
        }),
      );
    // The first attempt, and the retries the issue captured (650 s) or the server's schedule reaches.
    const statuses: number[] = [];
    for (const after of [0, 5, 650, 667, 1_500, 1_800, 1_830]) {
      clock = (IAT + after) * 1000;
      statuses.push((await post()).status);
    }
    deepStrictEqual(statuses, [200, 200, 200, 200, 200, 200, 200]);
    strictEqual(seen.length, 7);
    strictEqual(lines.length, 0, lines.join("\n"));
    // Past the window (1800 s + the 30 s leeway): refused, with one line naming the cause.
    clock = (IAT + 1_831) * 1000;
    strictEqual((await post()).status, 401);
    clock = (IAT + 1_880) * 1000;
    strictEqual((await post()).status, 401);
    strictEqual(seen.length, 7);
    strictEqual(lines.length, 1);
    ok(lines[0].startsWith("[gateway] Webhook refused (401 timestamp_too_old)"), lines[0]);
    ok(
      lines[0].includes(`the JWT was issued more than 1800 s ago ("iat" ${IAT}; jwtMaxAgeSeconds 1800)`),
      lines[0],
    );
    strictEqual(lines[0].includes(JWT_KEY), false);
  } finally {
    console.error = original;
  }
});

Deno.test("jwt window: jwtMaxAgeSeconds sets the window; the leeway applies at both ends", async () => {
  const options = { signature: { scheme: "jwt", secret: JWT_KEY, jwtMaxAgeSeconds: 700 } } as const;
  const authorization = await serverToken(serverClaims());
  const at = (after: number) =>
    reasonOf(verifyWebhook(BODY, { authorization }, options, (IAT + after) * 1000));
  strictEqual(await at(650), "accepted");
  strictEqual(await at(730), "accepted");
  strictEqual(await at(731), "timestamp_too_old");
  strictEqual(await at(1_500), "timestamp_too_old");
  const narrow = {
    signature: { scheme: "jwt", secret: JWT_KEY, jwtMaxAgeSeconds: 60, jwtLeewaySeconds: 0 },
  } as const;
  strictEqual(await reasonOf(verifyWebhook(BODY, { authorization }, narrow, (IAT + 60) * 1000)), "accepted");
  strictEqual(
    await reasonOf(verifyWebhook(BODY, { authorization }, narrow, (IAT + 61) * 1000)),
    "timestamp_too_old",
  );
  for (const bad of [-1, NaN, Infinity, "1800", 86_401, 1e12]) {
    throws(
      () => createWebhookHandler({ signature: { secret: JWT_KEY, jwtMaxAgeSeconds: bad as number } }),
      (error: unknown) =>
        error instanceof ConfigurationException && error.setting === "signature.jwtMaxAgeSeconds",
    );
  }
});

Deno.test("jwt window: tokens the server would never send are refused, even validly signed", async () => {
  const now = (IAT + 10) * 1000;
  const check = async (claims: Record<string, unknown>, signature: WebhookSignatureOptions = {}) =>
    reasonOf(
      verifyWebhook(BODY, { authorization: await serverToken(claims) }, {
        signature: { secret: JWT_KEY, ...signature },
      }, now),
    );
  strictEqual(await check(serverClaims()), "accepted");
  // A lifetime longer than the server's 600 s (one second more is what its two clock reads can give).
  strictEqual(await check({ ...serverClaims(), exp: IAT + 601 }), "accepted");
  strictEqual(await check({ ...serverClaims(), exp: IAT + 602 }), "invalid_claims");
  strictEqual(await check({ ...serverClaims(), exp: IAT + 86_400 }), "invalid_claims");
  strictEqual(await check({ ...serverClaims(), exp: IAT - 1 }), "invalid_claims");
  // Claims other than the server's.
  strictEqual(await check({ ...serverClaims(), app: "other" }), "invalid_claims");
  strictEqual(await check({ ...serverClaims(), action: "login" }), "invalid_claims");
  strictEqual(await check({ iat: IAT, exp: IAT + 600, action: "webhook" }), "invalid_claims");
  strictEqual(await check({ iat: IAT, exp: IAT + 600, app: "evolution" }), "invalid_claims");
  // Issued in the future beyond the clock leeway (30 s by default).
  strictEqual(await check(serverClaims(IAT + 40)), "accepted");
  strictEqual(await check(serverClaims(IAT + 41)), "timestamp_in_future");
  strictEqual(await check(serverClaims(IAT + 11), { jwtLeewaySeconds: 0 }), "timestamp_in_future");
  // A window wider than the default does not widen what a token may claim.
  strictEqual(
    await check({ ...serverClaims(), exp: IAT + 3_600 }, { jwtMaxAgeSeconds: 7_200 }),
    "invalid_claims",
  );
  // Another key: still a mismatch, whatever the claims.
  strictEqual(
    await reasonOf(
      verifyWebhook(BODY, { authorization: await serverToken(serverClaims(), "another-key") }, {
        signature: { secret: JWT_KEY },
      }, now),
    ),
    "signature_mismatch",
  );
  await rejects(
    verifyWebhook(BODY, { authorization: await serverToken({ ...serverClaims(), app: "x" }) }, {
      signature: { secret: JWT_KEY },
    }, now),
    /Cannot verify webhook: the JWT's claims are not the server's/,
  );
});

Deno.test("jwt window: GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS and webhook.signature.jwt_max_age_seconds set the window", () => {
  deepStrictEqual(
    optionsFromFile(WEBHOOK_KEYS, { webhook: { signature: { jwt_max_age_seconds: 900 } } }),
    { signature: { jwtMaxAgeSeconds: 900 } },
  );
  const env: Record<string, string> = {
    GATEWAY_WEBHOOK_SECRET: JWT_KEY,
    GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS: "900",
  };
  deepStrictEqual(webhookOptionsFromEnv((name) => env[name]).signature, {
    secret: JWT_KEY,
    jwtMaxAgeSeconds: 900,
  });
  // Decimal only: "0x10" is not 16, "1e3" not 1000.
  for (const bad of ["0x10", "1e3", "", " "]) {
    const given: Record<string, string> = { ...env, GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS: bad };
    throws(
      () => webhookOptionsFromEnv((name) => given[name]),
      (error: unknown) =>
        error instanceof ConfigurationException && error.setting === "GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS",
    );
  }
});

Deno.test("jwt window: a genuine token replayed at 29 minutes runs the handlers again only without dedupe or a store", async () => {
  // The token covers no body: what stops a replay of the same event is dedupe or a store's message claim.
  const body =
    '{"event":"messages.upsert","instance":"sales","data":{"key":{"id":"M1","remoteJid":"5511999999999@s.whatsapp.net","fromMe":false},"message":{"conversation":"hi"}}}';
  const authorization = await serverToken(serverClaims());
  const runsWith = async (extra: Partial<WebhookHandlerOptions>): Promise<number[]> => {
    let clock = IAT * 1000;
    let runs = 0;
    const processor = new WebhookProcessor({ log: false }).onAny(() => void runs++);
    const handler = createWebhookHandler({
      signature: { secret: JWT_KEY },
      processor,
      now: () => clock,
      ...extra,
    });
    const seen: number[] = [];
    for (const after of [0, 29 * 60]) {
      clock = (IAT + after) * 1000;
      const response = await handler(
        new Request("http://127.0.0.1/gateway/webhook/sales", {
          method: "POST",
          headers: { "content-type": "application/json", authorization },
          body,
        }),
      );
      strictEqual(response.status, 200);
      await response.body?.cancel();
      seen.push(runs);
    }
    await handler.close();
    return seen;
  };
  deepStrictEqual(await runsWith({}), [1, 2]);
  deepStrictEqual(await runsWith({ dedupe: true }), [1, 1]);
  deepStrictEqual(await runsWith({ store: new MemoryStore() }), [1, 1]);
});
