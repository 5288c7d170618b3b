// docs/webhooks.md's ts blocks import the library one way, as a user's project does (`jsr:@gw/gateway…`);
// `deno task check` type-checks every block (`deno check --doc-only docs/*.md`).
import { deepStrictEqual, ok } from "node:assert/strict";

Deno.test("docs/webhooks.md: every ts block imports the library as jsr:@gw/gateway…", async () => {
  const text = await Deno.readTextFile(new URL("../../docs/webhooks.md", import.meta.url));
  const blocks = [...text.matchAll(/^( *)```ts\n([\s\S]*?)^\1```/gm)].map((match) => match[2]);
  ok(blocks.length >= 8, `found ${blocks.length} blocks`);
  const specifiers = blocks.flatMap((block) =>
    [...block.matchAll(/from "([^"]+)"/g)].map((match) => match[1])
  );
  const other = specifiers.filter((specifier) =>
    !/^(jsr:@gw\/gateway(\/[a-z]+)?|node:[a-z:]+)$/.test(specifier)
  );
  deepStrictEqual(other, []);
  ok(specifiers.filter((specifier) => specifier.startsWith("jsr:@gw/gateway")).length >= 8);
});
