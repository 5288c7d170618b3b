/**
 * Multi-tenancy: one service, several gateway servers and instances, used concurrently without any tenant
 * leaking into another's requests. Runs on two local mock servers:
 *
 *   deno run --allow-net=127.0.0.1 examples/multi_tenant.ts
 *
 * @module
 */

import { GatewayService } from "../mod.ts";
import { MockGatewayServer } from "../src/testing/mod.ts";

const eu = await MockGatewayServer.start({ apiKey: "eu-key" });
const us = await MockGatewayServer.start({ apiKey: "us-key" });
try {
  eu.addInstance("acme", { open: true });
  eu.addInstance("globex", { open: true });
  us.addInstance("initech", { open: true });

  // One service; each connection is a gateway server with its own key.
  const gw = GatewayService.make({
    default: "eu",
    connections: { eu: { server_url: eu.url, api_key: "eu-key" } },
  });
  // Tenants can be added at runtime, e.g. when a customer signs up.
  gw.getConnectionManager().addConnection("us", { server_url: us.url, api_key: "us-key" });

  // Bound views: each request carries its own connection and instance, so concurrent calls never mix.
  const tenants = [
    gw.instance("acme"),
    gw.instance("globex"),
    gw.connection("us").instance("initech"),
  ];
  const results = await Promise.all(
    tenants.map((tenant) =>
      tenant.messages().text("5511999999999", `Hello from ${tenant.getInstanceName()}`)
    ),
  );
  for (const [i, res] of results.entries()) {
    console.log(`${tenants[i].getConnectionName()}/${tenants[i].getInstanceName()}: ${res.json("key.id")}`);
  }
  console.log(`eu received ${eu.sentMessages.length} messages, us received ${us.sentMessages.length}`);
} finally {
  await eu.close();
  await us.close();
}
