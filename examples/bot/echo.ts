import { Bot } from "@gw/gateway/bot";
const bot = new Bot(); // service, secret and scheme from the environment
bot.on("message:text", (ctx) => ctx.reply(ctx.text));
export default { fetch: bot.fetch }; // deno serve, Deno Deploy, Cloudflare Workers
