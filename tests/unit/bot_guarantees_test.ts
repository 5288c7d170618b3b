// The bot's guarantees: exactly once, echo safety, per-chat order (also across bots on one store),
// debounce, groups, pause/resume.
import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import { MemoryStore } from "../../src/backends/memory/store.ts";
import { WebhookException } from "../../src/errors.ts";
import { WebhookPayloadDto } from "../../src/webhooks/payload.ts";
import { Bot, type Context } from "../../src/bot/mod.ts";
import { GatewayService } from "../../src/service.ts";
import {
  ANA,
  gate,
  GatewayStub,
  GROUP,
  inbound,
  INSTANCE,
  ORDER_STORES,
  OWN,
  sharedLikeStore,
  stubBot,
  stubService,
} from "../helpers/bot.ts";

const BIA = "5511988887777@s.whatsapp.net";

Deno.test("exactly once: two receivers on one store run a message once, also while the first still runs", async () => {
  const store = new MemoryStore();
  const stub = new GatewayStub();
  const make = () =>
    new Bot({ signature: { scheme: "none" }, store, pacing: false, service: stubService(stub, store) });
  const [a, b] = [make(), make()];
  const runs: string[] = [];
  const hold = gate();
  const started = gate();
  a.on("message:text", async (ctx) => {
    runs.push("a");
    started.open();
    await hold.promise;
    await ctx.reply("from a");
  });
  b.on("message:text", async (ctx) => {
    runs.push("b");
    await ctx.reply("from b");
  });
  const update = inbound("once", { id: "X1" });
  const first = a.handleUpdate(update);
  await started.promise;
  // The other receiver gets the same webhook while the first runs: busy, so the server retries later.
  await rejects(b.handleUpdate(update), (e: unknown) => e instanceof WebhookException && e.status === 503);
  hold.open();
  await first;
  await b.handleUpdate(update); // the retry: already done
  await a.handleUpdate(update); // a plain redelivery
  deepStrictEqual(runs, ["a"]);
  deepStrictEqual(stub.texts(), ["from a"]);
});

Deno.test("exactly once: one payload object given to handleUpdate twice at once runs once; neither hangs", async () => {
  const { bot, stub } = stubBot();
  const runs: string[] = [];
  bot.on("message:text", async (ctx) => {
    runs.push(ctx.msg!.id);
    await ctx.reply(`got ${ctx.text}`);
  });
  const update = inbound("twice", { id: "SAME1" });
  // The same object both times: each processing must keep its own place in the chat's line.
  const settled = await Promise.allSettled([bot.handleUpdate(update), bot.handleUpdate(update)]);
  deepStrictEqual(settled.map((s) => s.status), ["fulfilled", "rejected"]);
  const busy = (settled[1] as PromiseRejectedResult).reason;
  ok(busy instanceof WebhookException && busy.status === 503, String(busy));
  await bot.handleUpdate(update); // the server's retry: already done
  deepStrictEqual(runs, ["SAME1"]);
  deepStrictEqual(stub.texts(), ["got twice"]);
  await bot.close();
});

Deno.test("echo-safe: own messages, send.message and status posts never reach plain middleware", async () => {
  const { bot, stub } = stubBot();
  const seen: string[] = [];
  bot.use((ctx, next) => {
    seen.push(`${ctx.update.kind}:${ctx.msg?.id}`);
    return next();
  });
  bot.use((ctx) => ctx.reply("an echo bot that would loop")); // answers everything it sees
  await bot.handleUpdate(inbound("hi", { id: "E1" }));
  // The echoes of its reply (BOT1) and a message typed on the phone, a status post:
  await bot.handleUpdate({
    ...inbound("an echo bot that would loop", { id: "BOT1" }),
    event: "send.message",
  });
  await bot.handleUpdate(inbound("an echo bot that would loop", { id: "BOT1", fromMe: true }));
  await bot.handleUpdate(inbound("typed on the phone", { id: "E2", fromMe: true }));
  await bot.handleUpdate(
    inbound({ imageMessage: {} }, { id: "E3", from: "status@broadcast", participant: BIA }),
  );
  await bot.handleUpdate({
    event: "messages.update",
    instance: INSTANCE,
    data: { keyId: "BOT1", remoteJid: ANA, fromMe: true, status: "READ" },
  });
  deepStrictEqual(seen, ["message:E1"]);
  strictEqual(stub.texts().length, 1);
});

Deno.test("explicit queries reach own updates: outgoing (not the bot's echoes), status, story", async () => {
  const { bot, stub } = stubBot();
  const seen: string[] = [];
  bot.on("message:text", (ctx) => ctx.reply("ok"));
  bot.on("outgoing", (ctx) => void seen.push(`outgoing:${ctx.msg.id}`));
  bot.on("status", (ctx) => void seen.push(`status:${ctx.msg.id}:${ctx.status}`));
  bot.on("story", (ctx) => void seen.push(`story:${ctx.from.id}`));
  await bot.handleUpdate(inbound("hi", { id: "O1" }));
  await bot.handleUpdate(inbound("ok", { id: "BOT1", fromMe: true })); // echo of the reply
  await bot.handleUpdate({ ...inbound("ok", { id: "BOT1" }), event: "send.message" });
  await bot.handleUpdate(inbound("agent here", { id: "O2", fromMe: true })); // typed on the phone
  await bot.handleUpdate({
    event: "messages.update",
    instance: INSTANCE,
    data: { keyId: "BOT1", remoteJid: ANA, fromMe: true, status: "DELIVERY_ACK" },
  });
  await bot.handleUpdate(inbound({ imageMessage: {} }, {
    id: "O3",
    from: "status@broadcast",
    participant: BIA,
  }));
  deepStrictEqual(seen, ["outgoing:O2", "status:BOT1:DELIVERY_ACK", `story:${BIA}`]);
  deepStrictEqual(stub.texts(), ["ok"]);
});

for (const [kind, makeStore] of ORDER_STORES) {
  Deno.test(`per-chat order (${kind}): one chat's updates run one at a time in arrival order, other chats meanwhile`, async () => {
    const store = makeStore();
    const { bot } = stubBot({ store });
    const second = stubBot({ store }).bot; // another isolate on the same store
    const log: string[] = [];
    const hold = gate();
    const started = gate();
    const handler = async (ctx: Context) => {
      log.push(`start:${ctx.text}`);
      if (ctx.text === "ana-1") {
        started.open();
        await hold.promise;
      }
      log.push(`end:${ctx.text}`);
    };
    bot.on("message:text", handler);
    second.on("message:text", handler);
    const first = bot.handleUpdate(inbound("ana-1", { id: "Q1" }));
    await started.promise;
    const later = [
      second.handleUpdate(inbound("ana-2", { id: "Q2" })),
      bot.handleUpdate(inbound("ana-3", { id: "Q3" })),
    ];
    await bot.handleUpdate(inbound("bia-1", { id: "Q4", from: BIA })); // another chat does not wait
    deepStrictEqual(log, ["start:ana-1", "start:bia-1", "end:bia-1"]);
    hold.open();
    await Promise.all([first, ...later]);
    deepStrictEqual(log.slice(3), ["end:ana-1", "start:ana-2", "end:ana-2", "start:ana-3", "end:ana-3"]);
  });

  Deno.test(`per-chat order (${kind}): a failed update and a redelivered one end their turns, the next runs`, async () => {
    const { bot } = stubBot({ store: makeStore() });
    const log: string[] = [];
    bot.on("message:text", (ctx) => {
      log.push(ctx.text);
      if (ctx.text === "boom") throw new Error("handler failed");
    });
    const updates = [
      bot.handleUpdate(inbound("one", { id: "F1" })),
      bot.handleUpdate(inbound("boom", { id: "F2" })),
      bot.handleUpdate(inbound("one", { id: "F1" })), // redelivered while the first may still run
      bot.handleUpdate(inbound("two", { id: "F3" })),
    ];
    const settled = await Promise.allSettled(updates);
    deepStrictEqual(settled.map((s) => s.status), ["fulfilled", "rejected", "rejected", "fulfilled"]);
    deepStrictEqual(log, ["one", "boom", "two"]);
    await bot.handleUpdate(inbound("boom again", { id: "F4" }));
    deepStrictEqual(log, ["one", "boom", "two", "boom again"]);
  });
}

Deno.test("per-chat order: a turn held by a crashed process is skipped after orderLeaseMs", async () => {
  let clock = 1_000_000;
  const now = () => clock;
  const store = sharedLikeStore(now); // a memory store is this process's alone: nobody else can hold a turn
  const sleeps: number[] = [];
  const { bot } = stubBot({
    store,
    now,
    orderLeaseMs: 5000,
    sleep: (ms) => {
      sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  });
  // A process took ticket 0 and died before leaving.
  await store.state.set("bot_chat_order", `${INSTANCE}/${ANA}`, { next: 1, serving: 0, since: clock });
  const seen: string[] = [];
  bot.on("message:text", (ctx) => void seen.push(ctx.text));
  await bot.handleUpdate(inbound("after the crash", { id: "Z1" }));
  deepStrictEqual(seen, ["after the crash"]);
  strictEqual(sleeps.filter((ms) => ms === 50).length, 100); // looked every 50 ms until the lease ran out
  strictEqual(await store.state.get("bot_chat_order", `${INSTANCE}/${ANA}`), null); // nothing left behind
});

Deno.test("debounceMs merges a burst from one chat into one update (ctx.messages)", async () => {
  const waits: (() => void)[] = [];
  const joined = gate();
  const { bot, store } = stubBot({
    debounceMs: 1500,
    sleep: (ms, signal) =>
      ms === 1500
        ? new Promise<void>((resolve) => {
          waits.push(resolve);
          if (waits.length === 3) joined.open();
        })
        : new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason))),
  });
  const runs: string[][] = [];
  bot.on("message", (ctx) => void runs.push(ctx.messages.map((m) => m.text ?? "")));
  const pending = ["I", "want", "pizza"].map((text, i) => bot.handleUpdate(inbound(text, { id: `D${i}` })));
  await joined.promise;
  for (const wake of waits) wake();
  await Promise.all(pending);
  deepStrictEqual(runs, [["I", "want", "pizza"]]);
  deepStrictEqual(await store.state.list("bot_burst"), []);
  deepStrictEqual(await store.state.list("bot_burst_taken"), []);
});

Deno.test("groups: none drops group messages, mentions keeps those that mention or quote the instance", async () => {
  for (
    const [groups, expected] of [["all", ["g1", "g2", "g3", "p1"]], ["none", ["p1"]], ["mentions", [
      "g2",
      "g3",
      "p1",
    ]]] as const
  ) {
    const { bot } = stubBot({ groups });
    const seen: string[] = [];
    bot.on("message", (ctx) => void seen.push(ctx.msg.id));
    await bot.handleUpdate(inbound("hello all", { id: "g1", group: GROUP, participant: ANA }));
    await bot.handleUpdate(inbound("hey bot", {
      id: "g2",
      group: GROUP,
      participant: ANA,
      extra: { contextInfo: { mentionedJid: [OWN] } },
    }));
    await bot.handleUpdate(inbound("yes", {
      id: "g3",
      group: GROUP,
      participant: ANA,
      extra: { contextInfo: { stanzaId: "BOT9", participant: OWN, quotedMessage: { conversation: "ok?" } } },
    }));
    await bot.handleUpdate(inbound("private", { id: "p1" }));
    deepStrictEqual(seen, expected, groups);
  }
});

Deno.test("groups: mentions keeps a reply to one of the bot's messages that names the bot by an unknown @lid", async () => {
  const { bot, stub } = stubBot({ groups: "mentions" });
  bot.on("message:text", (ctx) => ctx.reply(`answer to ${ctx.msg.id}`));
  const quoting = (id: string, quoted: string) =>
    inbound("yes", {
      id,
      group: GROUP,
      participant: ANA,
      // 2.3.6 in a LID group: the quoted message's author as an @lid the store has not learned.
      extra: { contextInfo: { stanzaId: quoted, participant: "88888888888888@lid", quotedMessage: {} } },
    });
  await bot.handleUpdate(inbound("hey bot", {
    id: "m1",
    group: GROUP,
    participant: ANA,
    extra: { contextInfo: { mentionedJid: [OWN] } },
  }));
  await bot.handleUpdate(quoting("m2", "BOT1")); // BOT1: the stub's id of the bot's first reply
  await bot.handleUpdate(quoting("m3", "3EB0SOMEONE")); // a quote of someone else's message
  deepStrictEqual(stub.texts(), ["answer to m1", "answer to m2"]);
});

/** A `groups: "mentions"` bot whose service calls `fetch`. */
function mentionsBot(store: MemoryStore, fetch: typeof globalThis.fetch): Bot {
  const service = new GatewayService({
    server_url: "http://gateway.test",
    api_key: "k",
    instance: INSTANCE,
    store,
    retry: { max_retries: 0 },
  }, { fetch });
  return new Bot({ signature: { scheme: "none" }, store, service, pacing: false, groups: "mentions" });
}

Deno.test("groups: mentions recognises the bot's own @lid, read once from a LID group's members", async () => {
  const BOT_LID = "77777777777777@lid";
  const OTHER_GROUP = "120363111111111111@g.us";
  const store = new MemoryStore();
  const stub = new GatewayStub();
  const memberReads: string[] = [];
  let membersAnswer = 200;
  const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.startsWith("/group/participants/")) return stub.fetch(input, init);
    memberReads.push(url.searchParams.get("groupJid")!);
    if (membersAnswer !== 200) {
      return Promise.resolve(
        Response.json({ status: 500, error: "x", response: { message: ["x"] } }, { status: 500 }),
      );
    }
    return Promise.resolve(Response.json({
      participants: [
        { id: BOT_LID, phoneNumber: OWN, admin: null },
        { id: "123456789012345@lid", phoneNumber: ANA, admin: "admin" },
      ],
    }));
  };
  const bot = mentionsBot(store, fetch);
  const seen: string[] = [];
  bot.on("message", (ctx) => void seen.push(ctx.msg.id));
  const mention = (id: string, group: string, who: string) =>
    inbound("hey", {
      id,
      group,
      participant: "123456789012345@lid",
      extra: { contextInfo: { mentionedJid: [who] } },
    });
  membersAnswer = 500; // the first group's members cannot be read: judged on the phone JID alone, not read again
  await bot.handleUpdate(mention("L0", OTHER_GROUP, BOT_LID));
  await bot.handleUpdate(mention("L1", OTHER_GROUP, BOT_LID));
  membersAnswer = 200;
  await bot.handleUpdate(mention("L2", GROUP, BOT_LID)); // members read: the bot's @lid is learned
  await bot.handleUpdate(mention("L3", GROUP, "123456789012345@lid")); // mentions Ana only
  await bot.handleUpdate(mention("L4", OTHER_GROUP, BOT_LID)); // known now, in every group
  deepStrictEqual(seen, ["L2", "L4"]);
  deepStrictEqual(memberReads, [OTHER_GROUP, GROUP]);
  strictEqual(await bot.processor.lidDirectory?.toPhone(BOT_LID), "5511900000000");
  await bot.close();
});

Deno.test("groups: mentions keeps a second @lid mention that arrives while the group's members are being read", async () => {
  const BOT_LID = "77777777777777@lid";
  const store = new MemoryStore();
  const stub = new GatewayStub();
  const answer = gate();
  const asked = gate();
  let memberReads = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.startsWith("/group/participants/")) return stub.fetch(input, init);
    memberReads++;
    asked.open();
    await answer.promise;
    return Response.json({ participants: [{ id: BOT_LID, phoneNumber: OWN, admin: null }] });
  };
  const bot = mentionsBot(store, fetch);
  const seen: string[] = [];
  bot.on("message", (ctx) => void seen.push(ctx.msg.id));
  const mention = (id: string) =>
    inbound("hey", {
      id,
      group: GROUP,
      participant: ANA,
      extra: { contextInfo: { mentionedJid: [BOT_LID] } },
    });
  const first = bot.handleUpdate(mention("C1"));
  await asked.promise; // the members are being read for C1
  const second = bot.handleUpdate(mention("C2"));
  answer.open();
  await Promise.all([first, second]);
  deepStrictEqual(seen, ["C1", "C2"]);
  strictEqual(memberReads, 1);
  await bot.close();
});

Deno.test("pause and resume: stored, seen by another bot on the store, by JID or phone number", async () => {
  const store = new MemoryStore();
  const { bot } = stubBot({ store });
  const other = stubBot({ store }).bot;
  const seen: string[] = [];
  other.on("message", (ctx) => void seen.push(ctx.msg.id));
  await bot.pause("+55 11 99999-9999");
  ok(await other.isPaused(ANA));
  await other.handleUpdate(inbound("help", { id: "H1" }));
  await other.handleUpdate(inbound("hello", { id: "H2", from: BIA }));
  strictEqual(await bot.resume(ANA), true);
  strictEqual(await bot.resume(ANA), false);
  await other.handleUpdate(inbound("back", { id: "H3" }));
  deepStrictEqual(seen, ["H2", "H3"]);
});

Deno.test("restart keeps the store and the middleware, not the caches", async () => {
  const { bot, stub } = stubBot();
  bot.on("message:text", (ctx) => ctx.reply(`echo ${ctx.text}`));
  await bot.handleUpdate(inbound("one", { id: "T1" }));
  const fresh = bot.restart();
  strictEqual(fresh.store, bot.store);
  await fresh.handleUpdate(inbound("one", { id: "T1" })); // already handled before the restart
  await fresh.handleUpdate(inbound("two", { id: "T2" }));
  deepStrictEqual(stub.texts(), ["echo one", "echo two"]);
});

Deno.test("per-chat order: a live holder renews its turn, so a handler slower than the lease is not skipped", async () => {
  // Real time here: renewals run on real timers. The first handler lasts more than three leases.
  const { bot } = stubBot({ orderLeaseMs: 150, store: sharedLikeStore() });
  const log: string[] = [];
  bot.on("message:text", async (ctx) => {
    log.push(`start:${ctx.text}`);
    if (ctx.text === "slow") await new Promise((resolve) => setTimeout(resolve, 600));
    log.push(`end:${ctx.text}`);
  });
  await Promise.all([
    bot.handleUpdate(inbound("slow", { id: "W1" })),
    bot.handleUpdate(inbound("next", { id: "W2" })),
  ]);
  deepStrictEqual(log, ["start:slow", "end:slow", "start:next", "end:next"]);
});

Deno.test("other updates run once per delivery too, and their replies have keys of their own", async () => {
  const { bot, stub } = stubBot();
  bot.on("message:text", (ctx) => ctx.reply(`got ${ctx.text}`));
  bot.on("edit", (ctx) => ctx.reply(`you changed it to ${ctx.msg.text}`));
  await bot.handleUpdate(inbound("helo", { id: "ED1" }));
  const edit = WebhookPayloadDto.from({
    event: "messages.edited",
    instance: INSTANCE,
    data: {
      key: { remoteJid: ANA, fromMe: false, id: "ED1" },
      type: "MESSAGE_EDIT",
      editedMessage: { conversation: "hello" },
    },
  }, { deliveryId: "delivery-1" })!;
  await bot.handleUpdate(edit);
  await bot.handleUpdate(edit); // redelivered: same delivery id
  deepStrictEqual(stub.texts(), ["got helo", "you changed it to hello"]);
  deepStrictEqual(stub.requests.map((r) => r.idempotencyKey), [
    "bot:sales:ED1:0",
    "bot:sales:messages_edited:ED1:delivery-1:0",
  ]);
});

Deno.test("one chat id for an @lid chat, its phone form and the instance's own messages to it", async () => {
  const { bot } = stubBot();
  const chats: string[] = [];
  bot.on(["message", "outgoing"], (ctx) => void chats.push(`${ctx.update.kind}:${ctx.chat.id}`));
  const lid = "123456789012345@lid";
  // The first message carries both forms: the store's LID directory learns the pair.
  await bot.handleUpdate(inbound("hi", {
    id: "LID1",
    from: lid,
    extra: { key: { remoteJid: lid, remoteJidAlt: ANA, addressingMode: "lid", fromMe: false, id: "LID1" } },
  }));
  await bot.handleUpdate(inbound("only the lid now", { id: "LID2", from: lid }));
  await bot.handleUpdate(inbound("typed on the phone", { id: "LID3", from: lid, fromMe: true }));
  deepStrictEqual(chats, [`message:${ANA}`, `message:${ANA}`, `outgoing:${ANA}`]);
});
