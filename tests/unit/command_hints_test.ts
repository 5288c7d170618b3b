// Library errors that suggest a command name one that exists where the user is: `deno task connect` exists in
// this repository only, so the library (which runs in the user's project) names the package's command line.

import { ok, rejects, strictEqual } from "node:assert/strict";
import { GatewayService, InstanceDisconnectedException, InstanceNotFoundException } from "../../mod.ts";
import { MockGatewayServer } from "../../src/testing/mod.ts";

const KEY = "command-hints-key-0123456789";

Deno.test("a missing instance says how to create it, and a closed one how to pair it, with the package's command", async () => {
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  {
    mock.addInstance("sales", { open: false });
    const gw = GatewayService.make({ server_url: mock.url, api_key: KEY, retry: { max_retries: 0 } });
    await rejects(gw.instance("ghost").instances().connectionState(), (error: unknown) => {
      ok(error instanceof InstanceNotFoundException);
      ok(error.message.endsWith("(create it: deno run -A jsr:@gw/gateway/cli create ghost)"), error.message);
      return true;
    });
    await rejects(gw.instances().fetch("ghost"), (error: unknown) => {
      ok(error instanceof InstanceNotFoundException);
      ok(error.message.endsWith("(create it: deno run -A jsr:@gw/gateway/cli create ghost)"), error.message);
      return true;
    });
    await rejects(gw.instance("sales").messages().text("5511999999999", "Hi"), (error: unknown) => {
      ok(error instanceof InstanceDisconnectedException);
      ok(error.message.endsWith("(pair it: deno run -A jsr:@gw/gateway/cli connect sales)"), error.message);
      return true;
    });
  }
});

Deno.test("no library module outside the command line names a `deno task`", async () => {
  const found: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory && entry.name !== "cli") await walk(url);
      else if (
        entry.isFile && entry.name.endsWith(".ts") && (await Deno.readTextFile(url)).includes("deno task")
      ) {
        found.push(url.pathname.slice(url.pathname.indexOf("/src/") + 1));
      }
    }
  };
  await walk(new URL("../../src/", import.meta.url));
  strictEqual(found.join(", "), "");
});
