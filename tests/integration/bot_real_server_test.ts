// The bot's receiver against a real gateway server (GW_REAL_URL, GW_REAL_KEY); skipped without them. Its
// instances never connect, but connecting one makes the server send connection.update, signed with the
// webhook's jwt_key (Bearer JWT) and on its byEvents path: the bot verifies it with its default scheme
// (`auto`, only the secret given) and runs `on("connection")`.
import { ok } from "node:assert/strict";
import { Bot } from "../../src/bot/mod.ts";
import { NO_REAL_SERVER, realServerService } from "../helpers/real_server.ts";

Deno.test({
  name: "real server: the bot verifies the server's signed webhooks with its default scheme and runs on()",
  ignore: NO_REAL_SERVER,
  async fn() {
    const { name, store, gw } = realServerService("bot");
    const seen: string[] = [];
    const connected = Promise.withResolvers<void>();
    await gw.instances().create(name);
    let bot: Bot | undefined;
    const statuses: number[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request, info) => {
      const response = await bot!.fetch(request, info);
      statuses.push(response.status);
      return response;
    });
    try {
      const settings = await gw.webhooks().secure({
        url: `http://127.0.0.1:${server.addr.port}/gateway/webhook/${name}`,
        events: ["CONNECTION_UPDATE"],
        byEvents: true,
      });
      const secret = settings.signature.secret as string;
      bot = new Bot({ store, service: gw, signature: { secret } }); // no scheme: the default, auto
      bot.on("connection", (ctx) => {
        seen.push(`${ctx.instance}:${ctx.connection.state}`);
        connected.resolve();
      });
      await gw.instances().connect(name);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        connected.promise,
        new Promise((_, reject) =>
          timer = setTimeout(() => reject(new Error(`nothing: ${statuses}`)), 30_000)
        ),
      ]).finally(() => clearTimeout(timer));
      ok(seen.includes(`${name}:connecting`), seen.join());
      ok(statuses.every((status) => status === 200), statuses.join());
    } finally {
      await gw.instances().delete(name).catch(() => {});
      await server.shutdown();
      await bot?.close();
    }
  },
});
