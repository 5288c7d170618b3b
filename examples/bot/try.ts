/**
 * Try a bot example against the mock gateway server, in one command:
 *
 *   deno run -A examples/bot/try.ts echo       # or: handoff
 *
 * It starts the mock server (`MockGatewayServer`, an instance `demo` already connected), runs the example
 * with `deno serve` as a real webhook receiver, points the instance's webhook at it (with a `jwt_key`: the
 * server signs with it and the receiver's default scheme, `auto`, verifies it), then plays a short conversation: each message arrives as a real webhook, and the
 * bot's replies are read back from the mock server. Exits 1 when a reply that should come does not.
 */

import { MockGatewayServer } from "@gw/gateway/testing";

const API_KEY = "demo-api-key";
const SECRET = crypto.randomUUID();
const CUSTOMER = "5511999999999";
const ADMIN = "5511988887777";

interface Step {
  from: string;
  text: string;
  /** Whether the bot should answer. */
  answered: boolean;
}

const SCENARIOS: Record<string, Step[]> = {
  echo: [
    { from: CUSTOMER, text: "hi", answered: true },
    { from: CUSTOMER, text: "how are you?", answered: true },
  ],
  handoff: [
    { from: CUSTOMER, text: "hi", answered: true },
    { from: CUSTOMER, text: "/human", answered: true },
    { from: CUSTOMER, text: "hello? anyone?", answered: false }, // paused: the bot keeps quiet
    { from: ADMIN, text: `/resume ${CUSTOMER}`, answered: true },
    { from: CUSTOMER, text: "back again", answered: true },
  ],
};

const name = Deno.args[0] ?? "echo";
const steps = SCENARIOS[name];
if (steps === undefined) {
  console.error(`Unknown example "${name}": use one of ${Object.keys(SCENARIOS).join(", ")}`);
  Deno.exit(2);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (what !== "") console.error(`Timed out waiting for ${what}`);
  return false;
}

await using mock = await MockGatewayServer.start({ apiKey: API_KEY });
mock.addInstance("demo", { open: true, number: "5511900000000" });
const port = freePort();
const file = new URL(`./${name}.ts`, import.meta.url).pathname;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "serve",
    "--quiet",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--allow-net=127.0.0.1",
    "--allow-env",
    file,
  ],
  env: {
    GATEWAY_API_URL: mock.url,
    GATEWAY_API_KEY: API_KEY,
    GATEWAY_INSTANCE: "demo",
    GATEWAY_WEBHOOK_SECRET: SECRET,
    HANDOFF_ADMIN: ADMIN,
    NO_COLOR: "1",
  },
  stdout: "inherit",
  stderr: "inherit",
}).spawn();

let failed = false;
try {
  const up = await until("the bot to listen", async () => {
    try {
      await (await fetch(`http://127.0.0.1:${port}/`)).body?.cancel();
      return true;
    } catch {
      return false;
    }
  }, 30_000);
  if (!up) throw new Error("the bot did not start");
  const set = await fetch(`${mock.url}/webhook/set/demo`, {
    method: "POST",
    headers: { apikey: API_KEY, "content-type": "application/json" },
    body: JSON.stringify({
      webhook: {
        enabled: true,
        url: `http://127.0.0.1:${port}/gateway/webhook/demo`,
        events: ["MESSAGES_UPSERT", "SEND_MESSAGE", "MESSAGES_UPDATE"],
        headers: { jwt_key: SECRET },
      },
    }),
  });
  if (!set.ok) throw new Error(`webhook/set answered ${set.status}: ${await set.text()}`);
  for (const step of steps) {
    const before = mock.sentMessages.length;
    console.log(`${step.from === ADMIN ? "agent" : "customer"}: ${step.text}`);
    mock.simulateInboundMessage("demo", { from: step.from, text: step.text, pushName: "Ana" });
    const answered = await until(
      step.answered ? "the bot's reply" : "",
      () => mock.sentMessages.length > before,
      step.answered ? 10_000 : 1500,
    );
    await mock.webhooksIdle();
    for (const sent of mock.sentMessages.slice(before)) {
      console.log(`   bot: ${JSON.stringify(sent.text ?? sent)}`);
    }
    if (answered !== step.answered) failed = true;
    if (!step.answered && !answered) console.log("   (no reply: the chat is paused)");
  }
  await until("", () => false, 500); // time for an echo loop to show, if there were one
  console.log(`(${mock.sentMessages.length} messages sent by the bot in all)`);
} finally {
  child.kill("SIGTERM");
  await child.status;
}
if (failed) {
  console.error("The bot did not answer as expected");
  Deno.exit(1);
}
