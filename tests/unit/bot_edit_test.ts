// Edits and revokes as 2.3.6 sends them. Its messages.edited is the protocol message exactly as Baileys
// decoded it, and Baileys leaves that key on the sender's side (process-message.js: "they're in the
// perspective of the sender"): a contact's edit of their own message says `fromMe: true`, and in a
// private chat names the instance's own JID as `remoteJid`. A revoke also comes twice: messages.edited
// with a REVOKE protocol message, then messages.delete with the key on the receiver's side.
import { deepStrictEqual, strictEqual } from "node:assert/strict";
import type { Context } from "../../src/bot/mod.ts";
import { ANA, gate, GROUP, inbound, INSTANCE, OWN, stubBot } from "../helpers/bot.ts";

const BIA = "5511988887777@s.whatsapp.net";

function edited(key: Record<string, unknown>, type: string | number, text?: string) {
  const data: Record<string, unknown> = { key, type, timestampMs: "1760000005000" };
  if (text !== undefined) data.editedMessage = { conversation: text };
  return { event: "messages.edited", instance: INSTANCE, sender: OWN, data };
}

function record(ctx: Context): string {
  const from = ctx.from === undefined ? "-" : `${ctx.from.id}/${ctx.from.phone ?? "-"}`;
  return `${ctx.update.kind}:${ctx.chat?.id}:${from}:${ctx.msg?.id}:${ctx.msg?.fromMe}:${ctx.text ?? ""}`;
}

Deno.test("a contact's edit (key on the sender's side) is an edit in the chat the message came in", async () => {
  const { bot, stub } = stubBot();
  const seen: string[] = [];
  bot.use((ctx, next) => (seen.push(record(ctx)), next()));
  bot.on("edit", (ctx) => ctx.reply(`you changed it to ${ctx.text}`));
  await bot.handleUpdate(inbound("helo", { id: "3EB0E1" }));
  await bot.handleUpdate(edited({ remoteJid: OWN, fromMe: true, id: "3EB0E1" }, "MESSAGE_EDIT", "hello"));
  deepStrictEqual(seen, [
    `message:${ANA}:${ANA}/5511999999999:3EB0E1:false:helo`,
    `edit:${ANA}:${ANA}/5511999999999:3EB0E1:false:hello`,
  ]);
  deepStrictEqual(stub.texts(), ["you changed it to hello"]);
  strictEqual(stub.requests[0].body.number, ANA);
});

Deno.test("a contact's edit that arrives while their message is still handled is an edit, after it", async () => {
  const { bot } = stubBot();
  const seen: string[] = [];
  const hold = gate();
  const started = gate();
  bot.on("message", async (ctx) => {
    seen.push(record(ctx));
    started.open();
    await hold.promise; // a slow handler (a debounce, a reply waiting for its pacing)
  });
  bot.on(["edit", "outgoing"], (ctx) => void seen.push(record(ctx)));
  const first = bot.handleUpdate(inbound("helo", { id: "3EB0E2" }));
  await started.promise;
  const edit = bot.handleUpdate(
    edited({ remoteJid: OWN, fromMe: true, id: "3EB0E2" }, "MESSAGE_EDIT", "hello"),
  );
  hold.open();
  await Promise.all([first, edit]);
  deepStrictEqual(seen, [
    `message:${ANA}:${ANA}/5511999999999:3EB0E2:false:helo`,
    `edit:${ANA}:${ANA}/5511999999999:3EB0E2:false:hello`,
  ]);
});

Deno.test("an edit made on the instance's phone stays `outgoing`, in the contact's chat", async () => {
  const { bot } = stubBot();
  const seen: string[] = [];
  bot.on(["edit", "outgoing"], (ctx) => void seen.push(record(ctx)));
  await bot.handleUpdate(inbound("sent from the phone", { id: "3EB0P1", fromMe: true }));
  await bot.handleUpdate(edited({ remoteJid: ANA, fromMe: true, id: "3EB0P1" }, 14, "fixed on the phone"));
  deepStrictEqual(seen, [
    `outgoing:${ANA}:-:3EB0P1:true:sent from the phone`,
    `outgoing:${ANA}:-:3EB0P1:true:fixed on the phone`,
  ]);
});

Deno.test("a group member's edit is theirs, in the group", async () => {
  const { bot } = stubBot();
  const seen: string[] = [];
  bot.on(["edit", "outgoing"], (ctx) => void seen.push(record(ctx)));
  await bot.handleUpdate(inbound("hi all", { id: "3EB0G1", group: GROUP, participant: BIA }));
  await bot.handleUpdate(
    edited({ remoteJid: GROUP, fromMe: true, id: "3EB0G1" }, "MESSAGE_EDIT", "hi everyone"),
  );
  deepStrictEqual(seen, [`edit:${GROUP}:${BIA}/5511988887777:3EB0G1:false:hi everyone`]);
});

Deno.test("a contact's revoke, reported twice by the server, runs `delete` once", async () => {
  const { bot, stub } = stubBot();
  const seen: string[] = [];
  bot.on(["delete", "outgoing"], (ctx, next) => (seen.push(record(ctx)), next()));
  bot.on("delete", (ctx) => ctx.reply("I saw that"));
  await bot.handleUpdate(inbound("oops", { id: "3EB0R1" }));
  await bot.handleUpdate(edited({ remoteJid: OWN, fromMe: true, id: "3EB0R1" }, "REVOKE"));
  await bot.handleUpdate({
    event: "messages.delete",
    instance: INSTANCE,
    sender: OWN,
    data: { remoteJid: ANA, fromMe: false, id: "3EB0R1" },
  });
  deepStrictEqual(seen, [`delete:${ANA}:-:3EB0R1:false:`]);
  deepStrictEqual(stub.texts(), ["I saw that"]);
  deepStrictEqual(stub.requests.map((r) => r.idempotencyKey), ["bot:sales:delete:3EB0R1:0"]);
});
