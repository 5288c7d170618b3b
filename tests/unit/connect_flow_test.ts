import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import type { ConnectFlowEvent } from "../../src/resources/mod.ts";
import { createWebhookHandler, GatewayService, ValidationException, WebhookProcessor } from "../../mod.ts";
import type { GatewaySimulator } from "../../src/testing/mod.ts";
import { KEY, newSim } from "../helpers/simulator.ts";

/** A service whose sleep advances a fake clock (polling runs without waiting). */
function polling(sim: GatewaySimulator, onSleep: (at: number) => void = () => {}) {
  let t = 1_700_000_000_000;
  const gw = new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales", retry: { max_retries: 0 } },
    {
      fetch: sim.fetch,
      now: () => t,
      sleep: (ms) => {
        t += ms;
        onSleep(t);
        return Promise.resolve();
      },
    },
  );
  return { gw, elapsed: () => t - 1_700_000_000_000 };
}

async function collect(
  flow: AsyncIterable<ConnectFlowEvent>,
  onEvent: (event: ConnectFlowEvent) => void = () => {},
): Promise<ConnectFlowEvent[]> {
  const events: ConnectFlowEvent[] = [];
  for await (const event of flow) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

function routes(sim: GatewaySimulator): string[] {
  return sim.requests.map((r) => r.route ?? r.path);
}

Deno.test("connectFlow (qr, polling): the QR code, then open once the phone scanned it", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  const { gw } = polling(sim);
  const events = await collect(gw.instances().connectFlow({ method: "qr" }), (event) => {
    if (event.type === "qr") sim.simulateScan("sales");
  });
  strictEqual(events.length, 2);
  const [qr, open] = events;
  ok(qr.type === "qr" && qr.code.length > 10 && qr.base64?.startsWith("data:image/png;base64,"));
  deepStrictEqual(open, { type: "open" });
  deepStrictEqual(routes(sim), [
    "GET /instance/connect",
    "GET /instance/connectionState",
  ]);
  strictEqual((await gw.health().get({ connection: "default", instance: "sales" })).status, "open");
});

Deno.test("connectFlow: an open instance ends at once with open", async () => {
  await using sim = newSim();
  sim.addInstance("sales", { open: true });
  const { gw } = polling(sim);
  deepStrictEqual(await collect(gw.instances().connectFlow({ method: "qr" })), [{ type: "open" }]);
  strictEqual(sim.requests.length, 1);
});

Deno.test("connectFlow: timings that make no sense and unknown keys are refused before any request", async () => {
  // A NaN timeout never ended the flow, an interval of 0 polled in a tight loop, a misspelt key was ignored.
  await using sim = newSim();
  sim.addInstance("sales");
  const { gw } = polling(sim);
  const bad: [Record<string, unknown>, string][] = [
    [{ timeoutMs: NaN }, "timeoutMs must be a number"],
    [{ timeoutMs: -1 }, "timeoutMs must be at least 0"],
    [{ pollIntervalMs: 0 }, "pollIntervalMs must be at least 1"],
    [{ pollIntervalMs: "2000" }, "pollIntervalMs must be a number"],
    [{ stuckAfterMs: Infinity }, "stuckAfterMs must be a number"],
    [{ timeout: 5000 }, '"timeout" is not an option; did you mean "timeoutMs"?'],
  ];
  for (const [options, message] of bad) {
    throws(() => gw.instances().connectFlow({ method: "qr", ...options }), (e: unknown) => {
      ok(e instanceof ValidationException, String(e));
      strictEqual(e.message, `Invalid connect flow: ${message}`);
      return true;
    });
  }
  strictEqual(sim.requests.length, 0);
});

Deno.test("connectFlow (pairing): without a number it throws before any request; with one, the code to type", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  const { gw } = polling(sim);
  throws(() => gw.instances().connectFlow({ method: "pairing" }), (e: unknown) => {
    ok(e instanceof ValidationException);
    strictEqual(
      e.message,
      'Invalid connect flow: a pairing code needs the phone "number" to pair (or use method "qr")',
    );
    return true;
  });
  throws(() => gw.instances().connectFlow({ method: "link" as "qr" }), /"method" must be "qr" or "pairing"/);
  strictEqual(sim.requests.length, 0);

  const events = await collect(
    gw.instances().connectFlow({ method: "pairing", number: "+55 11 98888-7777" }),
    (event) => {
      if (event.type === "pairing") sim.simulateScan("sales");
    },
  );
  strictEqual(events[0].type, "pairing");
  ok(events[0].type === "pairing" && /^[A-Z0-9]{8}$/.test(events[0].code), JSON.stringify(events[0]));
  deepStrictEqual(events[1], { type: "open" });
  strictEqual(sim.requests[0].query.number, "5511988887777");
});

Deno.test("connectFlow: {count: 0} answers, then stuck connecting: restarts once, then gives up with a reason", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  sim.setWhatsAppReachable(false);
  const { gw, elapsed } = polling(sim);
  const events = await collect(
    gw.instances().connectFlow({
      method: "qr",
      stuckAfterMs: 10_000,
      pollIntervalMs: 2_000,
      timeoutMs: 600_000,
    }),
  );
  deepStrictEqual(events, [{
    type: "refused",
    reason: "stuck_connecting",
    message:
      "connecting for 10000 ms with no new code, also after a restart (can the server reach WhatsApp?)",
    state: "connecting",
  }]);
  strictEqual(elapsed(), 20_000);
  strictEqual(routes(sim).filter((r) => r === "POST /instance/restart").length, 1);
  const connects = sim.requests.filter((r) => r.route === "GET /instance/connect").length;
  strictEqual(connects, 11); // the first, then one per poll while connecting (5 before the restart, 5 after)
});

Deno.test("connectFlow: stuck, restarted once, then the QR code comes and the phone scans it", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  sim.setWhatsAppReachable(false);
  const { gw } = polling(sim);
  const flow = gw.instances().connectFlow({ method: "qr", stuckAfterMs: 10_000 });
  const events = await collect(flow, (event) => {
    if (event.type === "qr") sim.simulateScan("sales");
  });
  // Never reachable in this run: a second flow after the network returns gets a code at the restart.
  strictEqual(events.at(-1)?.type, "refused");
  sim.setWhatsAppReachable(true);
  const again = await collect(
    gw.instances().connectFlow({ method: "qr", stuckAfterMs: 10_000 }),
    (event) => {
      if (event.type === "qr") sim.simulateScan("sales");
    },
  );
  deepStrictEqual(again.map((e) => e.type), ["qr", "open"]);
  ok(routes(sim).includes("POST /instance/restart"));
});

Deno.test("connectFlow (polling): a closed attempt ends with closed and the row's disconnect reason", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  const { gw } = polling(sim);
  const events = await collect(gw.instances().connectFlow({ method: "qr" }), (event) => {
    if (event.type === "qr") sim.simulateDisconnect("sales", 401);
  });
  const last = events.at(-1)!;
  ok(last.type === "refused");
  strictEqual(last.reason, "closed");
  strictEqual(last.disconnect?.name, "logged_out");
  strictEqual(last.state, "close");
});

Deno.test("connectFlow: gives up with timeout when nobody scans", async () => {
  await using sim = newSim();
  sim.addInstance("sales");
  const { gw, elapsed } = polling(sim);
  const events = await collect(gw.instances().connectFlow({ method: "qr", timeoutMs: 7_000 }));
  deepStrictEqual(events.map((e) => e.type), ["qr", "refused"]);
  const last = events[1];
  ok(last.type === "refused");
  deepStrictEqual([last.reason, last.message, last.state], [
    "timeout",
    "not paired within 7000 ms",
    "connecting",
  ]);
  strictEqual(elapsed(), 7_000);
});

/** A simulator whose webhooks go to a receiver with `processor`, and a service that never wakes by itself. */
function withWebhooks() {
  const processor = new WebhookProcessor({ log: false });
  const handler = createWebhookHandler({ signature: { scheme: "none" }, processor });
  const sim = newSim({
    fetch: (input, init) => handler(new Request(input, init)),
    sleep: () => Promise.resolve(),
  });
  const gw = new GatewayService(
    { server_url: "http://gateway.test", api_key: KEY, instance: "sales" },
    {
      fetch: sim.fetch,
      // Only a webhook (or the signal) ends a wait.
      sleep: (_ms, signal) =>
        new Promise((_, reject) =>
          signal?.addEventListener("abort", () => reject(signal.reason), { once: true })
        ),
    },
  );
  return { sim, gw, processor };
}

async function webhookSetup(sim: GatewaySimulator, gw: GatewayService) {
  sim.addInstance("sales");
  await gw.webhooks().set({
    url: "http://receiver.test/gateway/webhook/sales",
    events: ["QRCODE_UPDATED", "CONNECTION_UPDATE"],
  });
}

Deno.test("connectFlow (webhooks): QR codes and open come from qrcode.updated and connection.update, no polling", async () => {
  const { sim, gw, processor } = withWebhooks();
  await webhookSetup(sim, gw);
  let codes = 0;
  const events = await collect(gw.instances().connectFlow({ method: "qr", processor }), (event) => {
    if (event.type !== "qr") return;
    // The server rotates the code (here: a restart makes a new one); the phone scans the second.
    if (++codes === 1) void gw.instances().restart("sales");
    else queueMicrotask(() => sim.simulateScan("sales"));
  });
  deepStrictEqual(events.map((e) => e.type), ["qr", "qr", "open"]);
  ok(events[0].type === "qr" && events[1].type === "qr" && events[0].code !== events[1].code);
  deepStrictEqual(routes(sim), ["POST /webhook/set", "GET /instance/connect", "POST /instance/restart"]);
  strictEqual(processor.handlerCount("QRCODE_UPDATED"), 0);
  await sim.close();
});

Deno.test("connectFlow (webhooks): the QR code limit ends the flow with qr_limit", async () => {
  const { sim, gw, processor } = withWebhooks();
  await webhookSetup(sim, gw);
  const events = await collect(gw.instances().connectFlow({ method: "qr", processor }), (event) => {
    if (event.type === "qr") queueMicrotask(() => sim.simulateQrLimit("sales"));
  });
  deepStrictEqual(events.map((e) => e.type), ["qr", "refused"]);
  const last = events[1];
  ok(last.type === "refused");
  deepStrictEqual(
    [last.reason, last.message],
    ["qr_limit", "the server stopped: QR code limit reached, please login again"],
  );
  await sim.close();
});

Deno.test("connectFlow: the signal stops the flow with its reason", async () => {
  const { sim, gw, processor } = withWebhooks();
  await webhookSetup(sim, gw);
  const controller = new AbortController();
  const seen: string[] = [];
  let error: unknown;
  try {
    for await (
      const event of gw.instances().connectFlow({ method: "qr", processor, signal: controller.signal })
    ) {
      seen.push(event.type);
      controller.abort(new Error("user cancelled"));
    }
  } catch (e) {
    error = e;
  }
  deepStrictEqual(seen, ["qr"]);
  strictEqual((error as Error).message, "user cancelled");
  strictEqual(processor.handlerCount("CONNECTION_UPDATE"), 0);
  await sim.close();
});
