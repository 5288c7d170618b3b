// Verification cost per call for the ~2 KB webhook body: our Web Crypto verifier against node:crypto HMAC,
// @octokit/webhooks-methods (GitHub's signature check) and standardwebhooks (the Standard Webhooks
// reference library). Bench-only dependencies; the library itself uses Web Crypto only.
// Run: deno bench bench/webhook_verify_bench.ts
import { createHmac, timingSafeEqual } from "node:crypto";
import { octokitVerify, StandardWebhook } from "../tests/npm/webhook_references.ts";
import { signWebhook, WebhookVerifier } from "../src/webhooks/signature.ts";
import { BODY, SECRET } from "./webhook_body.ts";

const bytes = new TextEncoder().encode(BODY);
const hmacHeaders = new Headers(await signWebhook({ body: bytes, secret: SECRET, timestamp: false }));
const signature = hmacHeaders.get("x-gateway-signature")!;
const ours = new WebhookVerifier({ secret: SECRET });
await ours.verify(bytes, hmacHeaders);

Deno.bench("ours: WebhookVerifier hmac (Web Crypto)", { group: "hmac", baseline: true }, async () => {
  await ours.verify(bytes, hmacHeaders);
});
Deno.bench("node:crypto createHmac + timingSafeEqual", { group: "hmac" }, () => {
  const expected = Buffer.from(createHmac("sha256", SECRET).update(bytes).digest("hex"));
  if (!timingSafeEqual(expected, Buffer.from(signature.slice(7)))) throw new Error("mismatch");
});
Deno.bench("@octokit/webhooks-methods verify", { group: "hmac" }, async () => {
  if (!(await octokitVerify(SECRET, BODY, signature))) throw new Error("mismatch");
});

const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const now = Math.floor(Date.now() / 1000);
const standardHeaders = await signWebhook({
  body: bytes,
  secret: WHSEC,
  scheme: "standard",
  id: "msg_1",
  timestamp: now,
});
const oursStandard = new WebhookVerifier({ scheme: "standard", secret: WHSEC });
const headers = new Headers(standardHeaders);
await oursStandard.verify(bytes, headers);
const reference = new StandardWebhook(WHSEC);
reference.verify(BODY, standardHeaders);

Deno.bench("ours: WebhookVerifier standard (Web Crypto)", { group: "standard", baseline: true }, async () => {
  await oursStandard.verify(bytes, headers);
});
Deno.bench("standardwebhooks Webhook.verify (parses JSON too)", { group: "standard" }, () => {
  reference.verify(BODY, standardHeaders);
});

// 32 verifications in flight, as under load (divide by 32 for the cost per call): Web Crypto's latency
// includes a hop to Deno's crypto threads, which overlaps when many calls are pending.
const batch = Array.from({ length: 32 }, () => 0);
Deno.bench("ours: 32 concurrent hmac verifications", { group: "hmac x32", baseline: true }, async () => {
  await Promise.all(batch.map(() => ours.verify(bytes, hmacHeaders)));
});
Deno.bench("node:crypto: 32 hmac verifications", { group: "hmac x32" }, () => {
  for (let i = 0; i < 32; i++) {
    const expected = Buffer.from(createHmac("sha256", SECRET).update(bytes).digest("hex"));
    if (!timingSafeEqual(expected, Buffer.from(signature.slice(7)))) throw new Error("mismatch");
  }
});
Deno.bench("@octokit/webhooks-methods: 32 concurrent verifications", { group: "hmac x32" }, async () => {
  await Promise.all(batch.map(() => octokitVerify(SECRET, BODY, signature)));
});
Deno.bench(
  "ours: 32 concurrent standard verifications",
  { group: "standard x32", baseline: true },
  async () => {
    await Promise.all(batch.map(() => oursStandard.verify(bytes, headers)));
  },
);
Deno.bench("standardwebhooks: 32 verifications", { group: "standard x32" }, () => {
  for (let i = 0; i < 32; i++) reference.verify(BODY, standardHeaders);
});
