// sendMany's report says what this run sent: an item whose idempotency key an earlier send already used is
// answered by the idempotency claim (a replay, no request), and counts as skipped, not sent.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { GatewayService, MemoryStore } from "../../mod.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

const ANA = { idempotencyKey: "promo-ana", to: "5511900000001", text: "Hi Ana" };
const BIA = { idempotencyKey: "promo-bia", to: "5511900000002", text: "Hi Bia" };

Deno.test("sendMany: an item the idempotency claim replays is skipped with the earlier message id, not sent", async () => {
  let t = Date.UTC(2030, 0, 7, 9, 0, 0);
  const now = () => t;
  const store = new MemoryStore({ now });
  const sim = newSim({ now });
  sim.addInstance("sales", { open: true });
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const request = new Request(input, init);
    if (request.url.includes("/message/sendText/")) requests.push(request.url);
    return sim.handle(request);
  };
  const sleep = (ms: number) => {
    t += ms;
    return Promise.resolve();
  };
  const gw = new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales", store, retry: { max_retries: 0 } },
    { fetch, now, sleep },
  );
  // A first batch sends Ana's message; the list then grows, so the second run is another batch (its id
  // comes from the keys) with no progress of its own: Ana's send is answered by the idempotency claim.
  const first = await gw.messages().sendMany([ANA]);
  deepStrictEqual([first.sent, first.skipped], [1, 0]);
  const earlierId = first.items[0].messageId;
  strictEqual(typeof earlierId, "string");
  strictEqual(requests.length, 1);

  const progress: [number, number][] = [];
  const report = await gw.messages().sendMany([ANA, BIA], {
    minGapMs: 1_000,
    jitterMs: 0,
    onProgress: (p) => void progress.push([p.sent, p.skipped]),
  });

  strictEqual(requests.length, 2, "only Bia's message is sent");
  deepStrictEqual(
    [report.sent, report.skipped, report.failed, report.paused, report.unknown],
    [1, 1, 0, 0, 0],
  );
  deepStrictEqual(report.items.map((item) => [item.idempotencyKey, item.status]), [
    ["promo-ana", "skipped"],
    ["promo-bia", "sent"],
  ]);
  strictEqual(report.items[0].messageId, earlierId);
  // Bia goes first: Ana's recipient interval, started by the first run, is not over yet.
  deepStrictEqual(progress, [[1, 0], [1, 1]]);
  strictEqual(report.batchId === first.batchId, false);

  // A rerun of the same batch finds both sent by now.
  const again = await gw.messages().sendMany([ANA, BIA]);
  deepStrictEqual([again.sent, again.skipped], [0, 2]);
  strictEqual(requests.length, 2);
});
