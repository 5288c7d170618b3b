// A dialogue spread over three processes on one KV file, as a bot restarted between two messages: each
// process resumes the form where the last one stopped, and a redelivery in a fourth sends nothing.
import { deepStrictEqual } from "node:assert/strict";
import { MockGatewayServer } from "../../src/testing/mod.ts";
import { envelope } from "../../src/testing/bot_payloads.ts";

const WORKER = new URL("../fixtures/form_worker.ts", import.meta.url).pathname;
const KEY = "form-test-key";

async function runWorker(path: string, url: string, bodies: unknown[]): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", WORKER, path, url, KEY, JSON.stringify(bodies)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(`worker failed: ${new TextDecoder().decode(output.stderr)}`);
}

Deno.test("conversation: restarted processes on one KV file resume the form and send nothing twice", async () => {
  const dir = await Deno.makeTempDir({ prefix: "gw_form_mp_" });
  await using mock = await MockGatewayServer.start({ apiKey: KEY });
  try {
    const info = mock.addInstance("bot", { open: true, number: "5511900000000" });
    const message = (text: string) =>
      envelope(
        { instance: "bot", ownerJid: info.ownerJid, now: Date.now() },
        "messages.upsert",
        mock.simulateInboundMessage("bot", { from: "5511999999999", text, pushName: "Ana" }),
      );
    const path = `${dir}/bot.kv`;
    const age = message("31");
    await runWorker(path, mock.url, [message("/form"), message("Ana")]);
    await runWorker(path, mock.url, [message("abc")]);
    await runWorker(path, mock.url, [age]);
    await runWorker(path, mock.url, [age]); // the server delivers it again
    deepStrictEqual(mock.sentMessages.map((m) => [m.number, m.text]), [
      ["5511999999999@s.whatsapp.net", "What is your name?"],
      ["5511999999999@s.whatsapp.net", "Nice to meet you, Ana. How old are you?"],
      ["5511999999999@s.whatsapp.net", "Please type your age as a whole number from 1 to 120."],
      ["5511999999999@s.whatsapp.net", "Thanks, Ana! You are 31."],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
