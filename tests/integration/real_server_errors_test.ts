// Error mappings checked against a real Evolution API server. Skipped unless GW_REAL_URL and GW_REAL_KEY are
// set (CI never has them), e.g. GW_REAL_URL=http://127.0.0.1:58080 GW_REAL_KEY=... deno test -A this file.
import { ok, rejects, strictEqual } from "node:assert/strict";
import { AuthenticationException, GatewayService, InstanceAlreadyExistsException } from "../../mod.ts";

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
