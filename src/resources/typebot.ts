/**
 * Typebot (`/typebot`): the ten bot routes, and `start` to run a flow for a chat.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { readBody } from "../dto/body_spec.ts";
import { TYPEBOT_BODY, TYPEBOT_SETTINGS_BODY, TYPEBOT_START_BODY } from "../dto/chatbot_bodies.ts";
import { BotResource } from "./chatbot.ts";
import type { BotInput } from "./chatbot_types.ts";
import type { CallOptions } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/** A Typebot bot, as `create` and `update` take it. */
export interface TypebotInput extends BotInput {
  /** The Typebot server (`https://typebot.example.com`). */
  url: string;
  /** The flow's public id. */
  typebot: string;
}

/** What `typebot().start` takes. */
export interface TypebotStartInput {
  /** The chat to run the flow for. */
  remoteJid: string;
  /** The Typebot server. */
  url: string;
  /** The flow's public id. */
  typebot: string;
  /** Start a session without waiting for the chat's first message. */
  startSession?: boolean;
  /** Variables for the flow (`[{ name, value }]`). */
  variables?: { name: string; value: unknown }[];
}

/**
 * Typebot flows bound to the instance (`gw.typebot()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const bot = (await gw.typebot().create({ url: "https://typebot.example.com", typebot: "welcome", triggerType: "all" })).data;
 * await gw.typebot().delete(bot.id);
 * ```
 */
export class TypebotResource extends BotResource<TypebotInput> {
  /** @ignore */
  protected readonly routes = ROUTE.typebot;
  /** @ignore */
  protected readonly bodies = { bot: TYPEBOT_BODY, settings: TYPEBOT_SETTINGS_BODY };

  /**
   * Start a flow for a chat (`POST /typebot/start`). The server calls the Typebot server at `url` before it
   * answers (`startChat`, or the whole first step with `startSession`). When that call fails the server
   * answers 200 with an empty body, which is `data: null` here: the flow did not start. It refuses a chat on
   * the ignore list (500 "Jid not allowed") and answers 500 when the typebot settings do not exist yet
   * (create a bot or call `setSettings` first).
   */
  async start(
    input: TypebotStartInput,
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    return await this.call(ROUTE.typebot.start, { body: readBody(TYPEBOT_START_BODY, input) }, options);
  }
}
