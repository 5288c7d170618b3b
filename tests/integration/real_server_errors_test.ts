// Error mappings checked against a real Evolution API server. Skipped unless GW_REAL_URL and GW_REAL_KEY are
// set (CI never has them), e.g. GW_REAL_URL=http://127.0.0.1:58080 GW_REAL_KEY=... deno test -A this file.
import { ok, rejects, strictEqual } from "node:assert/strict";
import {
  AuthenticationException,
  ConnectionException,
  GatewayService,
  InstanceAlreadyExistsException,
  InstanceDisconnectedException,
} from "../../mod.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

Deno.test({
  name: "real server: creating a taken instance name is InstanceAlreadyExistsException (403)",
  ignore: !url || !key,
  async fn() {
    const gw = GatewayService.make({ server_url: url!, api_key: key!, rate_limiting: { enabled: false } });
    const name = `gw-dup-${crypto.randomUUID().slice(0, 8)}`;
    await gw.instances().create(name);
    try {
      await rejects(gw.instances().create(name), (error: unknown) => {
        ok(error instanceof InstanceAlreadyExistsException);
        ok(!(error instanceof AuthenticationException));
        strictEqual(error.status, 403);
        strictEqual(error.instance, name);
        strictEqual(error.messages[0], `This name "${name}" is already in use.`);
        return true;
      });
    } finally {
      await gw.instances().delete(name);
    }
  },
});

Deno.test({
  name:
    "real server: whatsappNumbers and sends on an instance never connected are InstanceDisconnectedException",
  ignore: !url || !key,
  async fn() {
    const gw = GatewayService.make({ server_url: url!, api_key: key!, rate_limiting: { enabled: false } });
    const name = `gw-closed-${crypto.randomUUID().slice(0, 8)}`;
    await gw.instances().create(name);
    try {
      const view = gw.instance(name);
      await rejects(view.chats().isOnWhatsApp("5511999999999"), (error: unknown) => {
        ok(error instanceof InstanceDisconnectedException, String(error));
        strictEqual(error.status, 400);
        strictEqual(error.instance, name);
        return true;
      });
      await rejects(view.messages().text("5511999999999", "Hello"), (error: unknown) => {
        ok(error instanceof InstanceDisconnectedException, String(error));
        strictEqual(error.notSent, true);
        return true;
      });
    } finally {
      await gw.instances().delete(name);
    }
  },
});

Deno.test({
  name: "real server: an unreachable port is a ConnectionException naming the host, the port and the cause",
  ignore: !url || !key,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const gw = GatewayService.make({
      server_url: `http://127.0.0.1:${port}`,
      api_key: key!,
      instance: "x",
      retry: { max_retries: 0 },
    });
    strictEqual(await gw.ping(), false);
    await rejects(gw.instances().connectionState(), (error: unknown) => {
      ok(error instanceof ConnectionException);
      strictEqual(
        error.message,
        `Cannot reach gateway server for GET /instance/connectionState/x: connection refused by 127.0.0.1:${port}`,
      );
      return true;
    });
  },
});
