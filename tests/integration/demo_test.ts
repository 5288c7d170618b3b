// The README's first command: the demo must run to completion on embedded defaults and leave nothing behind.
import { ok, strictEqual } from "node:assert/strict";

Deno.test("deno task demo completes the round trip and exits 0", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const args = (config.tasks.demo.command as string).split(" ").slice(1);
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: new URL("../..", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  strictEqual(output.code, 0, `demo failed:\n${stdout}\n${stderr}`);
  const id = stdout.match(/201 key\.id=([0-9A-F]+) status=PENDING/)?.[1];
  ok(id, stdout);
  for (
    const line of [
      `webhook send.message     id=${id} to=5511999990000@s.whatsapp.net`,
      'webhook messages.upsert  from=5511999990000@s.whatsapp.net text="Hi! I\'d like to order."',
      `message sent        ${id} (MessageSent events: 1)`,
      `outbound record     sent messageId=${id}`,
      "inbound stored      yes",
      "messages sent       1",
      "Demo complete.",
    ]
  ) ok(stdout.includes(line), `missing "${line}" in:\n${stdout}`);
  const dir = stdout.match(/KV file\s+(\S+)\/gateway\.kv/)?.[1];
  ok(dir);
  let exists = true;
  try {
    await Deno.stat(dir);
  } catch {
    exists = false;
  }
  strictEqual(exists, false, "the demo left its KV directory behind");
});
