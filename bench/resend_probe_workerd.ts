// The re-send probe of bench/resend_probe.mjs in Cloudflare's runtime (workerd, through npm miniflare): a
// Worker POSTs twice to a raw HTTP/1.1 server that answers the first POST on a kept-alive connection, then
// reads the second in full and closes without answering. Prints what the server read and what the Worker saw.
//
// Run: deno run -A --lock=tests/npm/deno.lock bench/resend_probe_workerd.ts
import { Miniflare } from "../tests/npm/miniflare.ts";
import { rawHttpServer } from "../tests/helpers/raw_http_server.ts";

const server = rawHttpServer([{ answer: 201, body: '{"post":1}' }, "close"]);
const worker = `export default {
  async fetch(request) {
    const target = new URL(request.url).searchParams.get("target");
    const seen = [];
    for (let i = 0; i < 2; i++) {
      try {
        const response = await fetch(target + "/message/sendText/x", {
          method: "POST", headers: { "content-type": "application/json" }, body: '{"text":"hi"}',
        });
        seen.push(response.status + " " + await response.text());
      } catch (error) {
        seen.push("error (" + String(error && error.message).slice(0, 80) + ")");
      }
    }
    return Response.json(seen);
  },
};`;
const mf = new Miniflare({ modules: true, script: worker, compatibilityDate: "2025-01-01" });
try {
  const response = await mf.dispatchFetch(`http://localhost/?target=${encodeURIComponent(server.url)}`);
  const seen = await response.json() as string[];
  console.log(
    `workerd (miniflare 4.20260730.0) reused connection: server read ${server.requests.length} POSTs ` +
      `(on connections ${server.requests.map((r) => r.connection).join(",")}); caller saw "${
        seen.join('" then "')
      }"`,
  );
} finally {
  await mf.dispose();
  await server.close();
}
