// How the coordinator clients check input before any request and report a failing coordinator (the real
// object in workerd: tests/integration/cloudflare_worker_test.ts).
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import type { DurableObjectNamespace } from "../../src/backends/cloudflare/bindings.ts";
import { CoordinatorRateLimiter } from "../../src/backends/cloudflare/coordinator_rate_limiter.ts";
import { CoordinatorState } from "../../src/backends/cloudflare/coordinator_state.ts";
import { GatewayApiException } from "../../src/errors.ts";

function namespace(answer: (body: Record<string, unknown>) => Promise<Response> | Response) {
  const seen: { object: string; body: Record<string, unknown> }[] = [];
  const ns: DurableObjectNamespace = {
    idFromName: (name) => ({ toString: () => name }),
    get: (id) => ({
      fetch: async (_input, init) => {
        const body = JSON.parse(String(init?.body));
        seen.push({ object: id.toString(), body });
        return await answer(body);
      },
    }),
  };
  return { ns, seen };
}

Deno.test("CoordinatorRateLimiter: one object per key by default, the answer passed through", async () => {
  const { ns, seen } = namespace(() => Response.json({ result: true }));
  const limiter = new CoordinatorRateLimiter(ns);
  strictEqual(await limiter.attempt("gw:default:sales:messages", 30, 60), true);
  deepStrictEqual(seen, [{
    object: "ratelimit:gw:default:sales:messages",
    body: { op: "ratelimit.attempt", key: "gw:default:sales:messages", maxAttempts: 30, decaySeconds: 60 },
  }]);
});

Deno.test("coordinator clients refuse bad input before any request", async () => {
  const { ns, seen } = namespace(() => Response.json({ result: null }));
  await rejects(() => new CoordinatorRateLimiter(ns).attempt("k", 0, 60), GatewayApiException);
  await rejects(() => new CoordinatorState(ns).set("n", "k", undefined), TypeError);
  await rejects(() => new CoordinatorState(ns).list("n", { limit: 0 }), RangeError);
  strictEqual(seen.length, 0);
});

Deno.test("a failing coordinator is a GatewayApiException naming the object; input errors keep their type", async () => {
  const failing = namespace(() =>
    Response.json({ error: { name: "Error", message: "disk full" } }, { status: 500 })
  );
  await rejects(() => new CoordinatorRateLimiter(failing.ns).attempt("k", 1, 60), {
    name: "GatewayApiException",
    message: 'Cannot rate limit "k": disk full (coordinator "ratelimit:k", status 500)',
  });
  const unreachable = namespace(() => Promise.reject(new Error("network lost")));
  await rejects(() => new CoordinatorState(unreachable.ns).get("n", "k"), {
    name: "GatewayApiException",
    message: 'Cannot read state "n/k": the coordinator "state:n" could not be reached (network lost)',
  });
  const refusing = namespace(() =>
    Response.json({ error: { name: "TypeError", message: "bad key" } }, { status: 400 })
  );
  await rejects(() => new CoordinatorState(refusing.ns).get("n", "k"), {
    name: "TypeError",
    message: 'Cannot read state "n/k": bad key',
  });
});
