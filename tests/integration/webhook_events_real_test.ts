// The event table and the payload types against a real gateway server (GW_REAL_URL, GW_REAL_KEY); skipped
// without them. Its instances never connect, but creating, connecting and deleting one makes the server send
// connection.update, instance.delete, remove.instance and status.instance, to byEvents URLs, signed with its JWT.
import { deepStrictEqual, ok } from "node:assert/strict";
import { createWebhookHandler } from "../../src/webhooks/handler.ts";
import { WebhookProcessor } from "../../src/webhooks/processor.ts";
import { NO_REAL_SERVER, realServerService } from "../helpers/real_server.ts";

Deno.test({
  name: "real server: webhooks arrive typed by their event name, and a processor with a store records health",
  ignore: NO_REAL_SERVER,
  async fn() {
    const { name, store, gw } = realServerService("events");
    const seen: string[] = [];
    const paths: string[] = [];
    // The four kinds arrive each on its own request, in no fixed order.
    const all = Promise.withResolvers<void>();
    const kinds = new Set<string>();
    let lastState: string | undefined;
    const processor = new WebhookProcessor({ log: false, store, connection: gw.getConnectionName() })
      .on("connection.update", (p) => {
        seen.push(`${p.event}:${p.data.state}:${p.data.instance}`);
        lastState = p.data.state;
      })
      .on("INSTANCE_DELETE", (p) => void seen.push(`${p.event}:${p.data.instanceName === name}`))
      .on("remove-instance", (p) => void seen.push(`${p.event}:${p.data}`))
      .on(
        "status.instance",
        (p) => void seen.push(`${p.event}:${p.data.status}:${p.data.disconnectionReasonCode}`),
      )
      .onAny((p) => {
        kinds.add(p.event);
        if (kinds.size === 4) all.resolve();
      });
    await gw.instances().create(name);
    let receiver: ReturnType<typeof createWebhookHandler> | undefined;
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
      paths.push(new URL(request.url).pathname);
      return receiver!(request, info);
    });
    try {
      const settings = await gw.webhooks().secure({
        url: `http://127.0.0.1:${server.addr.port}/gateway/webhook/${name}`,
        events: ["connection.update", "INSTANCE_DELETE", "REMOVE_INSTANCE", "STATUS_INSTANCE"],
        byEvents: true,
      });
      receiver = createWebhookHandler({ ...settings, processor });
      await gw.instances().connect(name);
      await gw.instances().delete(name);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        all.promise,
        new Promise((_, reject) => timer = setTimeout(() => reject(new Error(seen.join())), 30_000)),
      ]).finally(() => clearTimeout(timer));
      ok(seen.includes(`CONNECTION_UPDATE:connecting:${name}`), seen.join());
      ok(seen.includes("INSTANCE_DELETE:true"), seen.join());
      ok(seen.includes("REMOVE_INSTANCE:null"), seen.join());
      ok(seen.includes("STATUS_INSTANCE:closed:401"), seen.join());
      // The byEvents suffixes are the table's aliases.
      for (const suffix of ["connection-update", "instance-delete", "remove-instance", "status-instance"]) {
        ok(paths.includes(`/gateway/webhook/${name}/${suffix}`), paths.join());
      }
      // The connection.update went into the health the service reads over the same store.
      const health = await gw.health().get({ connection: gw.getConnectionName(), instance: name });
      // "connecting", and after the delete's logout a "close" 401 when the server sent it in time.
      const expected = lastState === "close" ? ["closed", "open"] : ["connecting", "closed"];
      deepStrictEqual([health.status, health.breaker, health.source], [...expected, "webhook"]);
    } finally {
      await gw.instances().delete(name).catch(() => {});
      await server.shutdown();
      await receiver?.close();
    }
  },
});
