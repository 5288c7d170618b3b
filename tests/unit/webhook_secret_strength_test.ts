// Secrets weaker than the docs ask for are warned about once on stderr; a list of secrets in an environment
// variable is split by commas only, and never silently.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { webhookOptionsFromEnv } from "../../src/webhooks/env.ts";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { resetSecretWarnings } from "../../src/webhooks/verify/secrets.ts";
import { verifyWebhook, WebhookVerifier } from "../../src/webhooks/signature.ts";

const STRONG = "0123456789abcdef0123456789abcdef"; // 32 bytes
const STRONG_2 = "fedcba9876543210fedcba9876543210";

function stderrOf(body: () => void): string[] {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  try {
    body();
  } finally {
    console.error = original;
  }
  return lines;
}

const WEAK_LINE = (which: string, bytes: number, min = 32) =>
  `[gateway] Webhook secret${which} is ${bytes} bytes, shorter than the ${min} the docs ask for: a captured ` +
  "signature lets an attacker guess a short secret offline. Use a random one (openssl rand -hex 32, or " +
  "generateWebhookSecret()); it still works, and this is said once per process";

Deno.test("a secret shorter than 32 bytes is warned about once per process, never shown; 32 bytes are quiet", () => {
  resetSecretWarnings();
  const lines = stderrOf(() => {
    createWebhookHandler({ signature: { secret: STRONG } });
    new WebhookVerifier({ scheme: "jwt", secret: [STRONG, STRONG_2] });
  });
  deepStrictEqual(lines, []);
  const weak = stderrOf(() => {
    createWebhookHandler({ signature: { secret: "s3cret-but-short" } });
    createWebhookHandler({ signature: { secret: "another-short-one" } });
    void verifyWebhook("{}", new Headers(), { signature: { secret: "short" } }).catch(() => {});
  });
  deepStrictEqual(weak, [WEAK_LINE("", 16)]);
  for (const line of weak) strictEqual(line.includes("s3cret-but-short"), false);
  // In a rotation, the list says which one.
  resetSecretWarnings();
  deepStrictEqual(stderrOf(() => new WebhookVerifier({ secret: [STRONG, "old-short"] })), [
    WEAK_LINE(" #2 of 2", 9),
  ]);
  // UTF-8 bytes, not characters: 16 two-byte characters are 32 bytes.
  resetSecretWarnings();
  deepStrictEqual(stderrOf(() => new WebhookVerifier({ secret: "é".repeat(16) })), []);
});

Deno.test("a Standard Webhooks secret is measured by its decoded key: 24 bytes at least (the spec's minimum)", () => {
  resetSecretWarnings();
  const key24 = `whsec_${btoa("k".repeat(24))}`;
  const key16 = `whsec_${btoa("k".repeat(16))}`;
  deepStrictEqual(stderrOf(() => new WebhookVerifier({ scheme: "standard", secret: key24 })), []);
  deepStrictEqual(stderrOf(() => new WebhookVerifier({ scheme: "auto", secret: key24 })), []);
  deepStrictEqual(stderrOf(() => new WebhookVerifier({ scheme: "standard", secret: key16 })), [
    WEAK_LINE("", 16, 24).replace("Webhook secret", "Webhook secret (decoded whsec_ key)"),
  ]);
  // The scheme none has no secret to warn about.
  resetSecretWarnings();
  deepStrictEqual(
    stderrOf(() => new WebhookVerifier({ scheme: "none", secret: "x" })).filter((l) => l.includes("bytes")),
    [],
  );
});

Deno.test("GATEWAY_WEBHOOK_SECRET: several secrets are separated by commas only, and the split is said once", () => {
  resetSecretWarnings();
  const read = (value: string) =>
    webhookOptionsFromEnv((name) => name === "GATEWAY_WEBHOOK_SECRET" ? value : undefined).signature?.secret;
  let secret: unknown;
  const lines = stderrOf(() => {
    secret = read(`${STRONG},${STRONG_2}`);
    read(`${STRONG},${STRONG_2}`);
  });
  deepStrictEqual(secret, [STRONG, STRONG_2]);
  deepStrictEqual(lines, [
    "[gateway] GATEWAY_WEBHOOK_SECRET holds 2 secrets separated by commas (a rotation): a request signed with " +
    "any of them is accepted",
  ]);
  // One secret: nothing to say.
  resetSecretWarnings();
  deepStrictEqual(stderrOf(() => secret = read(STRONG)), []);
  strictEqual(secret, STRONG);
  // Whitespace around entries and empty entries are removed, and said (never silently).
  resetSecretWarnings();
  const trimmed = stderrOf(() => secret = read(` ${STRONG} ,, ${STRONG_2}\n`));
  deepStrictEqual(secret, [STRONG, STRONG_2]);
  deepStrictEqual(trimmed, [
    "[gateway] GATEWAY_WEBHOOK_SECRET had whitespace around a secret or an empty entry between commas; they " +
    "were removed",
    "[gateway] GATEWAY_WEBHOOK_SECRET holds 2 secrets separated by commas (a rotation): a request signed with " +
    "any of them is accepted",
  ]);
  // Other separators are not separators: the value stays one secret, and the line says so.
  for (const separator of [" ", ";", "\n", "\t"]) {
    resetSecretWarnings();
    const kept = stderrOf(() => secret = read(`${STRONG}${separator}${STRONG_2}`));
    strictEqual(secret, `${STRONG}${separator}${STRONG_2}`);
    deepStrictEqual(kept, [
      '[gateway] GATEWAY_WEBHOOK_SECRET holds one secret with whitespace or ";" inside; it is used as one ' +
      "secret (several secrets are separated by commas only)",
    ]);
    for (const line of kept) strictEqual(line.includes(STRONG), false);
  }
});
