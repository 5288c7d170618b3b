/**
 * Several processes on one redis-server: a shared limit is exact, shared dedupe runs a webhook's handlers
 * once, and a queue job whose worker was killed mid-job is done by another worker.
 */

import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { RedisWebhookQueue } from "../../src/backends/redis/queue.ts";
import { signWebhook } from "../../src/webhooks/signature.ts";
import { Child } from "../helpers/child.ts";
import { withRedisServer } from "../helpers/redis_server.ts";

const ROLES = new URL("../fixtures/redis_roles.ts", import.meta.url);
const FLAGS = ["--allow-net=127.0.0.1", "--allow-read", "--allow-env", "--allow-sys"];

Deno.test("RedisRateLimiter: 4 processes against one limit allow exactly the limit", async () => {
  await withRedisServer(async (server) => {
    const children = Array.from(
      { length: 4 },
      () => Child.spawn(ROLES, FLAGS, ["limit", server.url, "250", "400", "3600"]),
    );
    try {
      for (const child of children) strictEqual(await child.line(), "ready");
      await Promise.all(children.map((child) => child.send("go")));
      const results = await Promise.all(children.map(async (child) => JSON.parse(await child.line())));
      strictEqual(results.reduce((sum, r) => sum + r.allowed, 0), 400);
      strictEqual(results.reduce((sum, r) => sum + r.refused, 0), 600);
    } finally {
      for (const child of children) {
        const { code, stderr } = await child.close();
        strictEqual(code, 0, stderr);
      }
    }
  });
});

Deno.test("RedisWebhookDedupe: 2 receivers sharing dedupe run the handlers of one webhook once", async () => {
  await withRedisServer(async (server) => {
    const children = [0, 1].map(() => Child.spawn(ROLES, FLAGS, ["receive", server.url]));
    try {
      const ports = await Promise.all(children.map(async (child) => JSON.parse(await child.line()).port));
      const body = JSON.stringify({
        event: "messages.upsert",
        instance: "sales",
        data: { key: { id: "ONCE" } },
      });
      const headers = await signWebhook({ body, secret: "multi-secret" });
      const deliver = (port: number) =>
        fetch(`http://127.0.0.1:${port}/gateway/webhook/sales`, { method: "POST", headers, body })
          .then(async (response) => `${response.status} ${await response.text()}`);
      const settled: string[] = [];
      let othersIn!: () => void;
      const others = new Promise<void>((resolve) => othersIn = resolve);
      const deliveries = Array.from({ length: 20 }, (_, i) =>
        deliver(ports[i % 2]).then((answer) => {
          settled.push(answer);
          if (settled.length === 19) othersIn();
        }));
      // The first delivery's handler is parked until told: the 19 others are answered meanwhile, asked to
      // retry (409), never told "duplicate" while the first could still fail.
      await others;
      strictEqual(settled.filter((a) => a.startsWith("409 ")).length, 19);
      await Promise.all(children.map((child) => child.send("release")));
      await Promise.all(deliveries);
      strictEqual(settled.filter((a) => a === '200 {"ok":true}').length, 1);
      // A redelivery after it finished, to either receiver, is a duplicate.
      deepStrictEqual(await Promise.all(ports.map(deliver)), [
        '200 {"ok":true,"duplicate":true}',
        '200 {"ok":true,"duplicate":true}',
      ]);
      await Promise.all(children.map((child) => child.send("report")));
      const runs = await Promise.all(children.map(async (child) => JSON.parse(await child.line()).runs));
      strictEqual(runs[0] + runs[1], 1);
    } finally {
      for (const child of children) {
        const { code, stderr } = await child.close();
        strictEqual(code, 0, stderr);
      }
    }
  });
});

Deno.test("RedisWebhookQueue: a worker killed mid-job (SIGKILL): another worker does the job once after the visibility timeout", async () => {
  await withRedisServer(async (server) => {
    const queue = new RedisWebhookQueue({ url: server.url });
    const first = Child.spawn(ROLES, FLAGS, ["work", server.url, "1000", "hang"]);
    let second: Child | undefined;
    try {
      strictEqual(await first.line(), "ready");
      const body = JSON.stringify({
        event: "messages.upsert",
        instance: "sales",
        data: { key: { id: "K" } },
      });
      await queue.enqueue({
        type: "gateway.webhook.process",
        id: "job-1",
        deliveryId: "delivery-1",
        instance: "sales",
        attempt: 0,
        receivedAt: Date.now(),
        body: new TextEncoder().encode(body),
      });
      strictEqual(await first.line(), "started delivery-1");
      first.kill();
      strictEqual((await first.close()).code, 137);
      deepStrictEqual(await queue.counts(), { waiting: 0, running: 1, deadLettered: 0 });
      second = Child.spawn(ROLES, FLAGS, ["work", server.url, "1000"]);
      strictEqual(await second.line(), "ready");
      strictEqual(await second.line(), "started delivery-1");
      strictEqual(await second.line(), "done delivery-1");
      await second.send("stop");
      strictEqual((await second.close()).code, 0);
      // Done once: nothing left to run, nothing dead-lettered, and the stopped worker printed nothing more.
      deepStrictEqual(await queue.counts(), { waiting: 0, running: 0, deadLettered: 0 });
    } finally {
      first.kill();
      await first.close();
      if (second !== undefined) {
        second.kill();
        await second.close();
      }
      await queue.close();
    }
  });
});
