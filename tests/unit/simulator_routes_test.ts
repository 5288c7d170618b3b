import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { ROUTES } from "../../src/resources/routes.ts";
import { ALL_ROUTES } from "../../src/testing/simulator/router.ts";
import { call, createInstance, newSim } from "../helpers/simulator.ts";

Deno.test("simulator routes: every row of the route table is served exactly once, and nothing else", () => {
  for (const row of ROUTES) {
    const served = ALL_ROUTES.filter((def) => def.row === row);
    strictEqual(served.length, 1, `${row.method} ${row.path} is served ${served.length} times`);
    const def = served[0];
    strictEqual(def.method, row.method);
    strictEqual(def.status, row.status, `${row.path}: success status`);
    strictEqual(def.path + (def.withInstance ? "/{instance}" : ""), row.path);
  }
  const extra = ALL_ROUTES.filter((def) => def.row === undefined).map((def) => `${def.method} ${def.path}`);
  deepStrictEqual(extra, ["GET /", "POST /verify-creds"]);
  strictEqual(ALL_ROUTES.length, ROUTES.length + 2);
});

Deno.test("simulator routes: every table row routes to its handler (the instance guard answers, not 'Cannot')", async () => {
  const sim = newSim();
  for (const row of ROUTES) {
    if (!row.path.endsWith("/{instance}")) continue;
    // Chatwoot's callback has no guard (checked below).
    if (ALL_ROUTES.find((def) => def.row === row)!.auth === "none") continue;
    const path = row.path.replace("{id}", "cm0abc").replace("{instance}", "ghost");
    const res = await call(sim, row.method, path, row.method === "GET" ? undefined : {});
    strictEqual(res.status, 404, `${row.method} ${path}`);
    deepStrictEqual(res.body, {
      status: 404,
      error: "Not Found",
      response: { message: ['The "ghost" instance does not exist'] },
    }, `${row.method} ${path}`);
  }
  await sim.close();
});

Deno.test("simulator routes: Chatwoot's callback is the only unguarded instance route; a ghost instance gets null", async () => {
  const unguarded = ALL_ROUTES.filter((def) => def.auth === "none" && def.withInstance).map((def) =>
    def.path
  );
  deepStrictEqual(unguarded, ["/chatwoot/webhook"]);
  const sim = newSim();
  const ghost = await call(sim, "POST", "/chatwoot/webhook/ghost", {}, { key: null });
  strictEqual(ghost.status, 200);
  strictEqual(ghost.body, null);
  await createInstance(sim, "sales");
  const known = await call(sim, "POST", "/chatwoot/webhook/sales", {}, { key: null });
  deepStrictEqual(known.body, { message: "bot" });
  await sim.close();
});

Deno.test("simulator routes: the two rows without an instance segment route to their handlers", async () => {
  const sim = newSim();
  const list = await call(sim, "GET", "/instance/fetchInstances");
  strictEqual(list.status, 200);
  deepStrictEqual(list.body, []);
  await createInstance(sim, "sales");
  const again = await call(sim, "POST", "/instance/create", {
    instanceName: "sales",
    integration: "WHATSAPP-BAILEYS",
  });
  strictEqual(again.status, 403);
  deepStrictEqual(again.body, {
    status: 403,
    error: "Forbidden",
    response: { message: ['This name "sales" is already in use.'] },
  });
  await sim.close();
});
