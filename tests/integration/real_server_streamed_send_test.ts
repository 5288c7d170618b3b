// The re-send defence sends the body of every non-idempotent request as a stream (chunked) in Deno: the real
// Evolution API server reads it as it reads a body with a content-length. Skipped unless GW_REAL_URL and
// GW_REAL_KEY are set, e.g. GW_REAL_URL=http://127.0.0.1:58080 GW_REAL_KEY=... deno test -A this file.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { GatewayService, ValidationException } from "../../mod.ts";

const url = Deno.env.get("GW_REAL_URL");
const key = Deno.env.get("GW_REAL_KEY");

Deno.test({
  name: "real server: a streamed create, a streamed send body and a body-less delete are read as sent",
  ignore: !url || !key,
  async fn() {
    const gw = GatewayService.make({
      server_url: url!,
      api_key: key!,
      rate_limiting: { enabled: false },
      retry: { max_retries: 0 },
    });
    const name = `gw-streamed-${crypto.randomUUID().slice(0, 8)}`;
    const created = await gw.instances().create(name);
    strictEqual(created.status, 201);
    try {
      // The server's own schema check answers 400 naming the field it misses: it read the streamed body.
      await rejects(
        gw.instance(name).getClient().request("POST", "/message/sendText/{instance}", {
          instance: name,
          body: { number: "5511999999999" },
        }),
        (error: unknown) => {
          ok(error instanceof ValidationException, String(error));
          deepStrictEqual(error.messages, ['instance requires property "text"']);
          return true;
        },
      );
    } finally {
      const deleted = await gw.instances().delete(name);
      strictEqual(deleted.status, 200);
    }
  },
});
