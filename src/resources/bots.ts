/**
 * The bot integrations with only the ten shared routes: Dify, Flowise, Evolution Bot, n8n and EvoAI.
 *
 * @module
 */

import {
  BOT_SETTINGS_BODY,
  DIFY_BODY,
  EVOAI_BODY,
  EVOLUTION_BOT_BODY,
  FLOWISE_BODY,
  FLOWISE_SETTINGS_BODY,
  N8N_BODY,
} from "../dto/chatbot_bodies.ts";
import { BotResource } from "./chatbot.ts";
import type { BotInput } from "./chatbot_types.ts";
import { ROUTE } from "./routes.ts";

/** A Dify bot, as `create` and `update` take it. */
export interface DifyInput extends BotInput {
  /** The Dify app's kind. */
  botType: "chatBot" | "textGenerator" | "agent" | "workflow";
  /** The Dify API (`https://api.dify.ai/v1`). */
  apiUrl?: string;
  /** The app's API key. */
  apiKey?: string;
}

/** A Flowise bot, as `create` and `update` take it. */
export interface FlowiseInput extends BotInput {
  /** The flow's prediction URL. */
  apiUrl: string;
  /** The flow's API key. */
  apiKey?: string;
}

/** An Evolution Bot (your own HTTP bot), as `create` and `update` take it. */
export interface EvolutionBotInput extends BotInput {
  /** Where the server posts each message. */
  apiUrl: string;
  /** Sent as a Bearer token. */
  apiKey?: string;
}

/** An n8n workflow bot, as `create` and `update` take it. */
export interface N8nInput extends BotInput {
  /** The workflow's webhook URL. */
  webhookUrl: string;
  /** Basic auth user for the webhook. */
  basicAuthUser?: string;
  /** Basic auth password for the webhook (the server stores this name; `basicAuthPassword` is refused). */
  basicAuthPass?: string;
}

/** An EvoAI agent, as `create` and `update` take it. */
export interface EvoaiInput extends BotInput {
  /** The agent's URL. */
  agentUrl: string;
  /** The agent's API key. */
  apiKey?: string;
}

/**
 * Dify apps bound to the instance (`gw.dify()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.dify().create({ botType: "chatBot", apiUrl: "https://api.dify.ai/v1", apiKey: "app-1", triggerType: "all" });
 * ```
 */
export class DifyResource extends BotResource<DifyInput> {
  /** @ignore */
  protected readonly routes = ROUTE.dify;
  /** @ignore */
  protected readonly bodies = { bot: DIFY_BODY, settings: BOT_SETTINGS_BODY };
}

/**
 * Flowise flows bound to the instance (`gw.flowise()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.flowise().create({ apiUrl: "https://flowise.example.com/api/v1/prediction/1", triggerType: "all" });
 * ```
 */
export class FlowiseResource extends BotResource<FlowiseInput> {
  /** @ignore */
  protected readonly routes = ROUTE.flowise;
  /** @ignore */
  protected readonly bodies = { bot: FLOWISE_BODY, settings: FLOWISE_SETTINGS_BODY };
}

/**
 * Evolution Bots (your own HTTP bot) bound to the instance (`gw.evolutionBot()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.evolutionBot().create({ apiUrl: "https://bot.example.com/answer", triggerType: "all" });
 * ```
 */
export class EvolutionBotResource extends BotResource<EvolutionBotInput> {
  /** @ignore */
  protected readonly routes = ROUTE.evolutionBot;
  /** @ignore */
  protected readonly bodies = { bot: EVOLUTION_BOT_BODY, settings: BOT_SETTINGS_BODY };
}

/**
 * n8n workflows bound to the instance (`gw.n8n()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.n8n().create({ webhookUrl: "https://n8n.example.com/webhook/1", triggerType: "keyword", triggerOperator: "equals", triggerValue: "hi" });
 * ```
 */
export class N8nResource extends BotResource<N8nInput> {
  /** @ignore */
  protected readonly routes = ROUTE.n8n;
  /** @ignore */
  protected readonly bodies = { bot: N8N_BODY, settings: BOT_SETTINGS_BODY };
}

/**
 * EvoAI agents bound to the instance (`gw.evoai()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.evoai().create({ agentUrl: "https://evoai.example.com/agent", triggerType: "all" });
 * ```
 */
export class EvoaiResource extends BotResource<EvoaiInput> {
  /** @ignore */
  protected readonly routes = ROUTE.evoai;
  /** @ignore */
  protected readonly bodies = { bot: EVOAI_BODY, settings: BOT_SETTINGS_BODY };
}
