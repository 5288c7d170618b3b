// The bot examples run with `deno serve` against the mock server (the one command docs/bot.md gives): real
// webhooks signed with the instance's jwt_key, real replies, and no echo loop (the mock also sends the
// bot's own messages back as send.message and messages.update webhooks).
import { strictEqual } from "node:assert/strict";

async function tryExample(name: string): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--lock=tests/npm/deno.lock", "examples/bot/try.ts", name],
    cwd: new URL("../..", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  strictEqual(output.code, 0, `${stdout}\n${new TextDecoder().decode(output.stderr)}`);
  return stdout;
}

Deno.test("examples/bot/echo.ts answers each text once, with no echo loop", async () => {
  strictEqual(
    await tryExample("echo"),
    [
      "customer: hi",
      '   bot: "hi"',
      "customer: how are you?",
      '   bot: "how are you?"',
      "(2 messages sent by the bot in all)",
      "",
    ].join("\n"),
  );
});

Deno.test("examples/bot/handoff.ts pauses a chat on /human and resumes it from the admin number", async () => {
  strictEqual(
    await tryExample("handoff"),
    [
      "customer: hi",
      '   bot: "Bot: you said \\"hi\\". Send /human to talk to a person."',
      "customer: /human",
      '   bot: "Connecting you to a person. They will answer here shortly."',
      "customer: hello? anyone?",
      "   (no reply: the chat is paused)",
      "agent: /resume 5511999999999",
      '   bot: "The bot answers 5511999999999 again."',
      "customer: back again",
      '   bot: "Bot: you said \\"back again\\". Send /human to talk to a person."',
      "(4 messages sent by the bot in all)",
      "",
    ].join("\n"),
  );
});
