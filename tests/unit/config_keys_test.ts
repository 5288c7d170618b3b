import { deepStrictEqual, strictEqual, throws } from "node:assert/strict";
import {
  CLI_KEYS,
  CONNECTION_KEYS,
  optionsFromEnv,
  optionsFromFile,
  TASK_KEYS,
  variableOf,
  WEBHOOK_KEYS,
} from "../../src/config_keys.ts";
import { configFromEnv, validateConfig } from "../../src/config.ts";
import { WEBHOOK_ENV_VARIABLES, webhookOptionsFromEnv } from "../../src/webhooks/env.ts";
import { SECRET_VARIABLE } from "../../src/webhooks/pipeline/guard.ts";

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
    GATEWAY_WEBHOOK_SIGNATURE_SCHEME: "HMAC",
    GATEWAY_WEBHOOK_SIGNATURE_HEADER: "x-sig",
    GATEWAY_WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: "60",
    GATEWAY_WEBHOOK_SIGNATURE_REQUIRE_TIMESTAMP: "true",
    GATEWAY_WEBHOOK_MAX_BODY_BYTES: "2048",
    GATEWAY_WEBHOOK_BODY_TIMEOUT_MS: "2500",
    GATEWAY_QUEUE_ENABLED: "true",
    GATEWAY_QUEUE_MAX_ATTEMPTS: "3",
  };
  // The names these variables had before the rule (still documented, still read).
  const former: Record<string, string> = {
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
  deepStrictEqual(webhookOptionsFromEnv((name) => former[name]), expected);
});

Deno.test("settings table: each variable is named once, and the webhook ones are the documented list", () => {
  const keys = [...CONNECTION_KEYS, ...CLI_KEYS, ...WEBHOOK_KEYS];
  const names = keys.flatMap((
    key,
  ) => [variableOf(key), ...(key.formerEnv === undefined ? [] : [key.formerEnv])]);
  strictEqual(new Set(names).size, names.length);
  deepStrictEqual(Object.keys(WEBHOOK_ENV_VARIABLES), [
    "GATEWAY_WEBHOOK_ENABLED",
    "GATEWAY_WEBHOOK_ROUTE_PREFIX",
    "GATEWAY_WEBHOOK_SECRET",
    "GATEWAY_WEBHOOK_SIGNATURE_SCHEME",
    "GATEWAY_WEBHOOK_SCHEME",
    "GATEWAY_WEBHOOK_SIGNATURE_HEADER",
    "GATEWAY_WEBHOOK_HEADER",
    "GATEWAY_WEBHOOK_SIGNATURE_TOLERANCE_SECONDS",
    "GATEWAY_WEBHOOK_TOLERANCE_SECONDS",
    "GATEWAY_WEBHOOK_SIGNATURE_JWT_MAX_AGE_SECONDS",
    "GATEWAY_WEBHOOK_JWT_MAX_AGE_SECONDS",
    "GATEWAY_WEBHOOK_SIGNATURE_REQUIRE_TIMESTAMP",
    "GATEWAY_WEBHOOK_REQUIRE_TIMESTAMP",
    "GATEWAY_WEBHOOK_MAX_BODY_BYTES",
    "GATEWAY_WEBHOOK_BODY_TIMEOUT_MS",
    "GATEWAY_WEBHOOK_DEDUPE",
    "GATEWAY_WEBHOOK_DEDUPE_WINDOW_SECONDS",
    "GATEWAY_QUEUE_ENABLED",
    "GATEWAY_WEBHOOK_QUEUE",
    "GATEWAY_QUEUE_MAX_ATTEMPTS",
    "GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS",
  ]);
  strictEqual(WEBHOOK_ENV_VARIABLES.GATEWAY_QUEUE_MAX_ATTEMPTS, "queue.maxAttempts (default 5)");
  strictEqual(
    WEBHOOK_ENV_VARIABLES.GATEWAY_WEBHOOK_QUEUE_MAX_ATTEMPTS,
    "former name of GATEWAY_QUEUE_MAX_ATTEMPTS: queue.maxAttempts (default 5)",
  );
});

Deno.test("settings table: a variable is its file key upper-cased with GATEWAY_, but for the seed's four", () => {
  const seed = { GATEWAY_API_URL: "server_url", GATEWAY_API_KEY: "api_key", GATEWAY_INSTANCE: "instance" };
  for (const key of [...CONNECTION_KEYS, ...CLI_KEYS, ...WEBHOOK_KEYS]) {
    const variable = variableOf(key);
    if (variable === "GATEWAY_TIMEOUT_MS") strictEqual(key.file, "http.timeout_ms");
    else if (variable in seed) strictEqual(key.file, seed[variable as keyof typeof seed]);
    else strictEqual(variable, "GATEWAY_" + key.file.toUpperCase().replaceAll(".", "_"));
  }
  // The receiver's messages name the secret's variable by a constant: the table's.
  strictEqual(SECRET_VARIABLE, variableOf(WEBHOOK_KEYS.find((key) => key.file === "webhook.secret")!));
  // Each option is its file key in camelCase below the section (`webhook.`), but for the secret's place.
  const camel = (path: string) => path.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
  for (const key of WEBHOOK_KEYS) {
    if (key.file === "webhook.secret") strictEqual(key.option, "signature.secret");
    else strictEqual(key.option, camel(key.file.replace(/^webhook\./, "")));
  }
});

Deno.test("settings table: each webhook setting by its file key, its variable, its former variable and its option", async () => {
  const samples: Record<string, [file: unknown, text: string, option: unknown]> = {
    "webhook.enabled": [false, "false", false],
    "webhook.route_prefix": ["hooks", "hooks", "hooks"],
    "webhook.secret": ["s3cret-0123456789", "s3cret-0123456789", "s3cret-0123456789"],
    "webhook.signature.scheme": ["hmac", "hmac", "hmac"],
    "webhook.signature.header": ["x-sig", "x-sig", "x-sig"],
    "webhook.signature.tolerance_seconds": [60, "60", 60],
    "webhook.signature.jwt_max_age_seconds": [900, "900", 900],
    "webhook.signature.require_timestamp": [true, "true", true],
    "webhook.max_body_bytes": [2048, "2048", 2048],
    "webhook.body_timeout_ms": [2500, "2500", 2500],
    "webhook.dedupe": [undefined, "true", true],
    "webhook.dedupe.window_seconds": [undefined, "60", 60],
    "queue.enabled": [true, "true", true],
    "queue.max_attempts": [3, "3", 3],
  };
  const { createWebhookHandler } = await import("../../src/webhooks/handler.ts");
  for (const key of WEBHOOK_KEYS) {
    const [fileValue, text, value] = samples[key.file];
    // What a setting needs switched on to apply (the dedupe window needs dedupe, attempts need the queue).
    const switchKey = WEBHOOK_KEYS.find((other) => other.option === key.requires);
    const needs: Record<string, string> = switchKey === undefined ? {} : { [variableOf(switchKey)]: "true" };
    const expected = {};
    if (key.requires !== undefined) setPath(expected, key.requires, true);
    setPath(expected, key.option!, value);
    if (key.inFile !== false) {
      const file = {};
      setPath(file, key.file, fileValue);
      validateConfig(file, "file");
      const fromFile = {};
      setPath(fromFile, key.option!, value);
      deepStrictEqual(optionsFromFile([key], file), fromFile, key.file);
    }
    const names = [variableOf(key), ...(key.formerEnv === undefined ? [] : [key.formerEnv])];
    for (const name of names) {
      const env: Record<string, string> = { ...needs, [name]: text };
      deepStrictEqual(webhookOptionsFromEnv((n) => env[n]), expected, name);
    }
    // The option is a key the receiver accepts (an unknown one would be refused with a suggestion).
    const options = { signature: { scheme: "none" as const } };
    if (key.option !== "signature.scheme" && !key.option!.startsWith("queue")) {
      setPath(options, key.option!, key.option === "signature.secret" ? undefined : value);
      const handler = createWebhookHandler(options);
      await handler.close();
    }
  }
});

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  let section = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof section[part] !== "object" || section[part] === null) section[part] = {};
    section = section[part] as Record<string, unknown>;
  }
  section[parts[parts.length - 1]] = value;
}

Deno.test("settings table: a variable and its former name set to different values are refused, naming both", () => {
  throws(
    () =>
      webhookOptionsFromEnv((name) =>
        ({ GATEWAY_WEBHOOK_SIGNATURE_SCHEME: "jwt", GATEWAY_WEBHOOK_SCHEME: "hmac" })[name]
      ),
    {
      name: "ConfigurationException",
      message:
        "GATEWAY_WEBHOOK_SIGNATURE_SCHEME and GATEWAY_WEBHOOK_SCHEME (its former name) are both set, " +
        "to different values: unset GATEWAY_WEBHOOK_SCHEME",
    },
  );
  // The new name set but empty (a template's `NAME=`) leaves the former one in force.
  deepStrictEqual(
    webhookOptionsFromEnv((name) =>
      ({ GATEWAY_WEBHOOK_SIGNATURE_SCHEME: "", GATEWAY_WEBHOOK_SCHEME: "jwt" })[name]
    ),
    { signature: { scheme: "jwt" } },
  );
  // The same value under both names is one setting.
  deepStrictEqual(
    webhookOptionsFromEnv((name) => ({ GATEWAY_QUEUE_ENABLED: "true", GATEWAY_WEBHOOK_QUEUE: "true" })[name]),
    { queue: { enabled: true } },
  );
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
