// bot.catch: a handler that returns makes the failed update "handled" (the server does not retry it); one that
// rethrows lets the update fail, so the server's retry runs it again (its replies replayed, not resent).
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { BotError } from "../../src/bot/mod.ts";
import { inbound, INSTANCE, stubBot } from "../helpers/bot.ts";

const GROUP_ADD = {
  event: "group-participants.update",
  instance: INSTANCE,
  date_time: "2026-11-28T03:00:00.000Z", // what tells its redeliveries apart from other changes
  data: { id: "120363000000000000@g.us", action: "add", participants: ["5511988887777@s.whatsapp.net"] },
};

for (
  const [kind, update] of [["message", inbound("pay", { id: "C1" })], ["group change", GROUP_ADD]] as const
) {
  Deno.test(`catch (${kind}): a catch handler that returns makes the update handled; a redelivery runs nothing`, async () => {
    const { bot } = stubBot();
    let runs = 0;
    const caught: string[] = [];
    bot.use(() => {
      runs++;
      throw new Error("card declined");
    });
    bot.catch((err) => void caught.push(`${err.name}: ${(err.error as Error).message}`));
    await bot.handleUpdate(update); // resolves: no 500, so the server does not retry
    await bot.handleUpdate(update); // a redelivery anyway: already handled
    strictEqual(runs, 1);
    deepStrictEqual(caught, ["BotError: card declined"]);
  });

  Deno.test(`catch (${kind}): a catch handler that rethrows fails the update; the retry runs it again`, async () => {
    const { bot } = stubBot();
    let runs = 0;
    const caught: number[] = [];
    bot.use(() => {
      runs++;
      if (runs === 1) throw new Error("database down");
    });
    bot.catch((err) => {
      caught.push(runs);
      throw err; // let the server retry
    });
    await rejects(bot.handleUpdate(update), BotError); // a webhook is answered 500
    await bot.handleUpdate(update); // the server's retry after the 500
    await bot.handleUpdate(update); // a redelivery after success: nothing runs
    strictEqual(runs, 2);
    deepStrictEqual(caught, [1]);
  });
}

Deno.test("catch: a webhook whose catch handler rethrows is answered 500; one whose handler returns, 200", async () => {
  for (const rethrow of [true, false]) {
    const { bot } = stubBot();
    bot.use(() => {
      throw new Error("boom");
    });
    bot.catch((err) => {
      if (rethrow) throw err;
    });
    const response = await bot.fetch(
      new Request(`http://bot.test/gateway/webhook/${INSTANCE}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(inbound("x", { id: `W-${rethrow}` })),
      }),
    );
    await response.body?.cancel();
    strictEqual(response.status, rethrow ? 500 : 200, `rethrow: ${rethrow}`);
  }
});
