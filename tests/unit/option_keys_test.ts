/**
 * Every dedupe, queue, rate limiter and store constructor refuses an option key it does not know, with a
 * suggestion, before it opens or sends anything (the check the configuration file has).
 */

import { ok, strictEqual, throws } from "node:assert/strict";
import { ConfigurationException } from "../../src/errors.ts";
import { MemoryRateLimiter } from "../../src/backends/memory/rate_limiter.ts";
import { KvRateLimiter } from "../../src/backends/kv/rate_limiter.ts";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { KvStore } from "../../src/backends/kv/store.ts";
import { MemoryWebhookDedupe } from "../../src/backends/memory/dedupe.ts";
import {
  RedisRateLimiter,
  RedisState,
  RedisStore,
  RedisTaskLease,
  RedisWebhookDedupe,
  RedisWebhookQueue,
} from "../../src/backends/redis/mod.ts";
import {
  CloudflareWebhookQueue,
  CoordinatorRateLimiter,
  CoordinatorState,
  CoordinatorWebhookDedupe,
  D1Store,
} from "../../src/backends/cloudflare/mod.ts";

function refused(build: () => unknown, message: string): void {
  throws(build, (error: unknown) => {
    ok(error instanceof ConfigurationException, String(error));
    strictEqual(error.message, message);
    return true;
  });
}

// Never reached: the key check comes first.
const unused = {} as never;
const url = "redis://127.0.0.1:1";

Deno.test("memory and Deno KV constructors refuse unknown option keys with a suggestion", async () => {
  refused(
    () => new MemoryRateLimiter({ clock: Date.now } as never),
    'new MemoryRateLimiter: "clock" is not an option',
  );
  refused(
    () => new MemoryStore({ Now: Date.now } as never),
    'new MemoryStore: "Now" is not an option; did you mean "now"?',
  );
  refused(
    () => new MemoryWebhookDedupe({ window_seconds: 5 } as never),
    'new MemoryWebhookDedupe: "window_seconds" is not an option; did you mean "windowSeconds"?',
  );
  const kv = await Deno.openKv(":memory:");
  try {
    refused(
      () => new KvRateLimiter(kv, { maxConflictRetry: 3 } as never),
      'new KvRateLimiter: "maxConflictRetry" is not an option; did you mean "maxConflictRetries"?',
    );
    refused(
      () => new KvStore(kv, { maxRecord: 5 } as never),
      'new KvStore: "maxRecord" is not an option; did you mean "maxRecordBytes"?',
    );
    // The accepted keys still pass.
    new KvStore(kv, { prefix: ["t"], now: Date.now, maxRecordBytes: 10_000 });
    new KvRateLimiter(kv, { prefix: ["t"], now: Date.now, maxConflictRetries: 3 });
  } finally {
    kv.close();
  }
});

Deno.test("Redis constructors refuse unknown option keys before connecting", () => {
  refused(
    () => new RedisWebhookDedupe({ url, windowSecond: 5 } as never),
    'new RedisWebhookDedupe: "windowSecond" is not an option; did you mean "windowSeconds"?',
  );
  refused(
    () => new RedisWebhookQueue({ url, visibilityTimeout: 5 } as never),
    'new RedisWebhookQueue: "visibilityTimeout" is not an option; did you mean "visibilityTimeoutMs"?',
  );
  refused(
    () => new RedisRateLimiter({ url, keyPrefix: "x" } as never),
    'new RedisRateLimiter: "keyPrefix" is not an option; did you mean "prefix"?',
  );
  refused(
    () => new RedisStore({ url, connectTimeout: 5 } as never),
    'new RedisStore: "connectTimeout" is not an option; did you mean "connectTimeoutMs"?',
  );
  refused(
    () => new RedisState({ url, URL: url } as never),
    'new RedisState: "URL" is not an option; did you mean "url"?',
  );
  refused(
    () => new RedisTaskLease({ url, clock: 1 } as never),
    'new RedisTaskLease: "clock" is not an option',
  );
});

Deno.test("Cloudflare constructors refuse unknown option keys", () => {
  refused(
    () => new CoordinatorWebhookDedupe(unused, { object: "x" } as never),
    'new CoordinatorWebhookDedupe: "object" is not an option; did you mean "objectName"?',
  );
  refused(
    () => new CoordinatorRateLimiter(unused, { objectname: "x" } as never),
    'new CoordinatorRateLimiter: "objectname" is not an option; did you mean "objectName"?',
  );
  refused(
    () => new CoordinatorState(unused, { name: "x" } as never),
    'new CoordinatorState: "name" is not an option; did you mean "objectName"?',
  );
  refused(() => new D1Store(unused, { body: unused } as never), 'new D1Store: "body" is not an option');
  refused(
    () => new CloudflareWebhookQueue(unused, { body: unused } as never),
    'new CloudflareWebhookQueue: "body" is not an option; did you mean "bodies"?',
  );
});
