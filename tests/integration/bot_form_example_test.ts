// examples/bot/form.ts runs with `deno serve` against the mock server from the one command docs/bot.md gives
// (`deno run -A examples/bot/try.ts form`): real signed webhooks, real replies, the age asked again.
import { strictEqual } from "node:assert/strict";

Deno.test("examples/bot/form.ts: name, then a validated age, through deno serve and the mock server", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--lock=tests/npm/deno.lock", "examples/bot/try.ts", "form"],
    cwd: new URL("../..", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  strictEqual(output.code, 0, `${stdout}\n${new TextDecoder().decode(output.stderr)}`);
  strictEqual(
    stdout,
    [
      "customer: /form",
      '   bot: "What is your name?"',
      "customer: Ana",
      '   bot: "Nice to meet you, Ana. How old are you?"',
      "customer: thirty",
      '   bot: "Please type your age as a whole number from 1 to 120."',
      "customer: 31",
      '   bot: "Thanks, Ana! You are 31."',
      "(4 messages sent by the bot in all)",
      "",
    ].join("\n"),
  );
});
