import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import {
  CLI_KEYS,
  CONNECTION_KEYS,
  optionsFromEnv,
  optionsFromFile,
  TASK_KEYS,
  WEBHOOK_KEYS,
} from "../../src/config_keys.ts";
import { configFromEnv, validateConfig } from "../../src/config.ts";
import { WEBHOOK_ENV_VARIABLES, webhookOptionsFromEnv } from "../../src/webhooks/env.ts";

Deno.test("settings table: the file and the environment give the same options for the same values", () => {
  const file = {
    webhook: {
      enabled: true,
      route_prefix: "hooks",
      secret: ["new", "old"],
      signature: { scheme: "hmac", header: "x-sig", tolerance_seconds: 60, require_timestamp: true },
      max_body_bytes: 2048,
      body_timeout_ms: 2500,
    },
    queue: { enabled: true, max_attempts: 3 },
  };
  // Every file path of the table is a real configuration key.
  validateConfig(file, "file");
  const env: Record<string, string> = {
    GATEWAY_WEBHOOK_ENABLED: "true",
    GATEWAY_WEBHOOK_ROUTE_PREFIX: "hooks",
    GATEWAY_WEBHOOK_SECRET: "new,old",
    GATEWAY_WEBHOOK_SCHEME: "HMAC",
    GATEWAY_WEBHOOK_HEADER: "x-sig",
    GATEWAY_WEBHOOK_TOLERANCE_SECONDS: "60",
    GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP: "true",
    GATEWAY_WEBHOOK_MAX_BODY_BYTES: "2048",
    GATEWAY_WEBHOOK_BODY_TIMEOUT_MS: "2500",
    GATEWAY_WEBHOOK_QUEUE: "true",
    GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS: "3",
  };
  const expected = {
    enabled: true,
    routePrefix: "hooks",
    signature: {
      secret: ["new", "old"],
      scheme: "hmac",
      header: "x-sig",
      toleranceSeconds: 60,
      requireTimestamp: true,
    },
    maxBodyBytes: 2048,
    bodyTimeoutMs: 2500,
    queue: { enabled: true, maxAttempts: 3 },
  };
  deepStrictEqual(optionsFromFile(WEBHOOK_KEYS, file), expected);
  deepStrictEqual(webhookOptionsFromEnv((name) => env[name]), expected);
});

Deno.test("settings table: each variable is named once, and the webhook ones are the documented list", () => {
  const names = [...CONNECTION_KEYS, ...CLI_KEYS, ...WEBHOOK_KEYS].flatMap((key) => key.env ?? []);
  strictEqual(new Set(names).size, names.length);
  deepStrictEqual(Object.keys(WEBHOOK_ENV_VARIABLES), WEBHOOK_KEYS.flatMap((key) => key.env ?? []));
  strictEqual(WEBHOOK_ENV_VARIABLES.GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS, "queue.maxAttempts (default 5)");
});

Deno.test("settings table: the tasks section becomes registerScheduledTasks options", () => {
  const tasks = {
    prune: { schedule: "0 3 * * *", days: 14 },
    retry_failed: { schedule: "*/5 * * * *", max_retries: 2, limit: 10, instance: "sales" },
    reconcile_sends: { limit: 5, min_age_ms: 60_000 },
    reconcile: { max_messages: 100 },
  };
  validateConfig({ tasks }, "file");
  deepStrictEqual(optionsFromFile(TASK_KEYS, tasks), {
    prune: { schedule: "0 3 * * *", days: 14 },
    retryFailed: { schedule: "*/5 * * * *", maxRetries: 2, limit: 10, instance: "sales" },
    reconcileSends: { limit: 5, minAgeMs: 60_000 },
    reconcile: { maxMessages: 100 },
  });
});

Deno.test("settings table: the connection variables, switches that stay off, and clear errors", () => {
  const env: Record<string, string> = {
    GATEWAY_API_URL: "http://127.0.0.1:8080",
    GATEWAY_API_KEY: "key",
    GATEWAY_INSTANCE: "",
    GATEWAY_TIMEOUT_MS: " 2500 ",
  };
  deepStrictEqual(configFromEnv((name) => env[name]), {
    server_url: "http://127.0.0.1:8080",
    api_key: "key",
    http: { timeout_ms: 2500 },
  });
  throws(() => configFromEnv((name) => ({ GATEWAY_TIMEOUT_MS: "2.5" })[name]), {
    name: "ConfigurationException",
    message: 'GATEWAY_TIMEOUT_MS must be an integer from 1 to 2147483647 (ms), got "2.5"',
  });
  // A queue switched off leaves its attempts unread; the dedupe window needs dedupe on.
  const off: Record<string, string> = {
    GATEWAY_WEBHOOK_QUEUE: "false",
    GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS: "3",
    GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS: "60",
  };
  deepStrictEqual(optionsFromEnv(WEBHOOK_KEYS, (name) => off[name]), {});
  deepStrictEqual(
    optionsFromEnv(WEBHOOK_KEYS, (name) => ({ GATEWAY_WEBHOOK_DEDUPE: "yes" })[name]),
    { dedupe: true },
  );
  throws(() => optionsFromEnv(WEBHOOK_KEYS, (name) => ({ GATEWAY_WEBHOOK_ENABLED: "maybe" })[name]), {
    name: "ConfigurationException",
    message: 'Invalid environment variable GATEWAY_WEBHOOK_ENABLED: expected true or false, got "maybe"',
  });
});
