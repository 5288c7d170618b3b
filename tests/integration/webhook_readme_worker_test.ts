/**
 * The README's worker, run exactly as the README says (`deno serve` with its permissions), and without
 * `--allow-env`: the receiver must not refuse signed webhooks with a silent 401 (the server would drop them)
 * but answer 503 naming the variable and the flag, and say so once on stderr.
 */

import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import { signWebhook } from "../../src/webhooks/signature.ts";

const ROOT = new URL("../../", import.meta.url);
const SECRET = "readme-worker-secret";

async function readme(): Promise<{ worker: string; flags: string[] }> {
  const text = await Deno.readTextFile(new URL("README.md", ROOT));
  // Fenced blocks, also indented ones inside a numbered list.
  const blocks = [...text.matchAll(/^( *)```(\w+)\n([\s\S]*?)^ *```/gm)].map(([, indent, lang, code]) => ({
    lang,
    code: code.split("\n").map((line) => line.startsWith(indent) ? line.slice(indent.length) : line).join(
      "\n",
    ),
  }));
  const worker = blocks.find((b) =>
    b.lang === "ts" && b.code.includes('from "jsr:@gw/gateway/webhooks"') &&
    b.code.includes("fetch: handleWebhook")
  );
  const line = blocks.find((b) => b.lang === "sh" && /deno serve .*worker\.ts/.test(b.code))?.code
    .split("\n").find((text) => /deno serve .*worker\.ts/.test(text));
  ok(worker !== undefined && line !== undefined, "README has the worker block and its deno serve line");
  const words = line.replace(/\s#.*$/, "").trim().split(/\s+/);
  // `deno serve <flags> worker.ts` (the secret is exported the step before): keep the permission flags,
  // without the shell's quotes.
  strictEqual(words[0], "deno");
  const flags = words.slice(words.indexOf("serve") + 1, -1).filter((word) => word.startsWith("--allow"))
    .map((word) => word.replaceAll(/["']/g, ""));
  strictEqual(words.at(-1), "worker.ts");
  ok(/export GATEWAY_WEBHOOK_SECRET=/.test(text), "the README sets GATEWAY_WEBHOOK_SECRET before deno serve");
  // The worker imports the package by name; here it is this checkout.
  const entry = new URL("src/webhooks/mod.ts", ROOT).href;
  return { worker: worker.code.replace('"jsr:@gw/gateway/webhooks"', `"${entry}"`), flags };
}

interface Served {
  url: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

async function serve(dir: string, flags: string[]): Promise<Served> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--config",
      new URL("deno.json", ROOT).pathname,
      "--no-prompt",
      ...flags,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      `${dir}/worker.ts`,
    ],
    env: { GATEWAY_WEBHOOK_SECRET: SECRET },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let url: string | undefined;
  // deno serve reports where it listens on stderr: wait for that line, not for a time.
  while (url === undefined) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`deno serve exited: ${text}`);
    text += value;
    url = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(text)?.[1];
  }
  const drained = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
  })();
  return {
    url,
    stderr: () => text,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

async function post(url: string, secret: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify({ event: "connection.update", instance: "ops", data: { state: "open" } });
  const response = await fetch(`${url}/gateway/webhook/ops`, {
    method: "POST",
    headers: await signWebhook({ body, secret }),
    body,
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("README worker: without --allow-env 503 naming the variable and the flag, once on stderr; as documented 200 / 401", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_readme_worker_" });
  try {
    const { worker, flags } = await readme();
    deepStrictEqual(flags, ["--allow-env=GATEWAY_WEBHOOK_*"]);
    await Deno.writeTextFile(`${dir}/worker.ts`, worker);

    const denied = await serve(dir, []);
    try {
      const message =
        "Webhook receiver misconfigured: GATEWAY_WEBHOOK_SECRET cannot be read without permission; " +
        "run Deno with --allow-env=GATEWAY_WEBHOOK_SECRET (every webhook is answered 503 until then)";
      for (let i = 0; i < 3; i++) {
        deepStrictEqual(await post(denied.url, SECRET), {
          status: 503,
          body: { ok: false, error: message, setting: "GATEWAY_WEBHOOK_SECRET" },
        });
      }
      await denied.stop();
      const lines = denied.stderr().split("\n").filter((line) => line.includes("misconfigured"));
      deepStrictEqual(lines, [`[gateway] ${message}`]);
    } finally {
      await denied.stop().catch(() => {});
    }

    const allowed = await serve(dir, flags);
    try {
      deepStrictEqual(await post(allowed.url, SECRET), { status: 200, body: { ok: true } });
      deepStrictEqual(await post(allowed.url, "not-the-secret"), {
        status: 401,
        body: { ok: false, error: "Unauthorized" },
      });
    } finally {
      await allowed.stop();
    }
    strictEqual(allowed.stderr().includes("misconfigured"), false, allowed.stderr());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
