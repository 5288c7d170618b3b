/**
 * The bot's promises on the Cloudflare backends, in the real Workers runtime (workerd through npm
 * `miniflare`, offline), driven from Deno through miniflare's bindings as the state contract suites are:
 * docs/bot.md's per-chat order ("one chat's updates never run two at a time; in one process exactly in
 * arrival order ... only the `StateStore` contract is used, so KV, Redis, Durable Objects and D1 all work")
 * on a `D1Store` and on a `D1Store` whose state is the coordinator Durable Object (`CoordinatorState`); and
 * docs/webhooks.md's 409 with `Retry-After` for a redelivery while the first runs, on
 * `CoordinatorWebhookDedupe`.
 */

import { deepStrictEqual } from "node:assert/strict";
import { Miniflare } from "../npm/miniflare.ts";
import type { D1Database, DurableObjectNamespace } from "../../src/backends/cloudflare/bindings.ts";
import { CoordinatorState } from "../../src/backends/cloudflare/coordinator_state.ts";
import { CoordinatorWebhookDedupe } from "../../src/backends/cloudflare/coordinator_dedupe.ts";
import { D1Store } from "../../src/backends/cloudflare/d1_store.ts";
import { applyD1Migrations } from "../../src/backends/cloudflare/migrations.ts";
import type { Context } from "../../src/bot/mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import { bundleWorker } from "../helpers/cloudflare.ts";
import { inbound, stubBot } from "../helpers/bot.ts";
import { redeliveryWhileProcessing } from "../helpers/dedupe_redelivery.ts";

Deno.env.set("WRANGLER_SEND_METRICS", "false");
const mf = new Miniflare({
  modules: true,
  script: await bundleWorker("tests/fixtures/cloudflare_fixture_worker.ts"),
  compatibilityDate: "2025-09-01",
  bindings: { GATEWAY_WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
  d1Databases: ["DB"],
  durableObjects: { COORDINATOR: { className: "GatewayCoordinator", useSQLite: true } },
});
const db = await mf.getD1Database("DB") as unknown as D1Database;
await applyD1Migrations(db);
const coordinator = await mf.getDurableObjectNamespace("COORDINATOR") as unknown as DurableObjectNamespace;

// miniflare's client keeps keep-alive timers of its own across tests: the sanitizers are off in this file.
function workerTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false, fn });
}

const STORES: [string, () => GatewayStore][] = [
  ["D1Store", () => new D1Store(db)],
  ["D1Store on the coordinator's state", () => {
    const run = crypto.randomUUID();
    return new D1Store(db, {
      state: new CoordinatorState(coordinator, { objectName: (space) => `${run}:${space}` }),
    });
  }],
];

/** A handler that logs its start and end around a store round trip, so two runs at a time would interleave. */
function logging(log: string[], store: GatewayStore) {
  return async (ctx: Context) => {
    const text = String(ctx.text);
    log.push(`start:${text}`);
    await store.state.get("probe", text);
    log.push(`end:${text}`);
  };
}

/** The start/end pairs `log` would hold if `texts` ran one at a time in that order. */
function oneAtATime(texts: string[]): string[] {
  return texts.flatMap((text) => [`start:${text}`, `end:${text}`]);
}

for (const [kind, makeStore] of STORES) {
  workerTest(
    `bot on Cloudflare (${kind}): one process runs one chat's 8 updates one at a time in arrival order`,
    async () => {
      const store = makeStore();
      const chat = `55119${crypto.randomUUID().replace(/\D/g, "").slice(0, 8).padEnd(8, "0")}@s.whatsapp.net`;
      const { bot } = stubBot({ store });
      const log: string[] = [];
      bot.on("message:text", logging(log, store));
      const texts = Array.from({ length: 8 }, (_, i) => `m${i + 1}`);
      await Promise.all(
        texts.map((text) => bot.handleUpdate(inbound(text, { id: `${kind}-1-${text}`, from: chat }))),
      );
      deepStrictEqual(log, oneAtATime(texts));
    },
  );

  workerTest(
    `bot on Cloudflare (${kind}): two isolates on one store never run one chat's updates two at a time, each in its arrival order`,
    async () => {
      const store = makeStore();
      const chat = `55118${crypto.randomUUID().replace(/\D/g, "").slice(0, 8).padEnd(8, "0")}@s.whatsapp.net`;
      const bots = [stubBot({ store }).bot, stubBot({ store }).bot];
      const log: string[] = [];
      const ran: string[][] = [[], []];
      bots.forEach((bot, i) =>
        bot.on("message:text", async (ctx) => {
          ran[i].push(ctx.text);
          await logging(log, store)(ctx);
        })
      );
      const texts = Array.from({ length: 8 }, (_, i) => `m${i + 1}`);
      await Promise.all(
        texts.map((text, i) =>
          bots[i % 2].handleUpdate(inbound(text, { id: `${kind}-2-${text}`, from: chat }))
        ),
      );
      const order = log.filter((line) => line.startsWith("start:")).map((line) => line.slice(6));
      deepStrictEqual(log, oneAtATime(order));
      deepStrictEqual([...order].sort(), [...texts].sort());
      deepStrictEqual(ran, [texts.filter((_, i) => i % 2 === 0), texts.filter((_, i) => i % 2 === 1)]);
    },
  );
}

workerTest(
  "dedupe (Cloudflare coordinator): a redelivery while the first runs gets 409, Retry-After: 5",
  async () => {
    await redeliveryWhileProcessing(
      new CoordinatorWebhookDedupe(coordinator, { objectName: `dedupe:${crypto.randomUUID()}` }),
    );
  },
);

workerTest("workerd: dispose", () => mf.dispose());
