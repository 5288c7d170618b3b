/**
 * OpenAI (`/openai`): the ten bot routes, the stored API keys (`creds`) and the models a key can use.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { readBody } from "../dto/body_spec.ts";
import { OPENAI_BODY, OPENAI_CREDS_BODY, OPENAI_SETTINGS_BODY } from "../dto/chatbot_bodies.ts";
import { compact } from "../util/json_shape.ts";
import { BotResource, recordId } from "./chatbot.ts";
import type { BotInput, BotSettingsInput } from "./chatbot_types.ts";
import type { CallOptions } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/** An OpenAI bot, as `create` and `update` take it. */
export interface OpenaiInput extends BotInput {
  /** The stored API key to use (`createCreds` answers its id). */
  openaiCredsId: string;
  /** An assistant (needs `assistantId`) or chat completion (needs `model` and `maxTokens`). */
  botType: "assistant" | "chatCompletion";
  /** The assistant's id. */
  assistantId?: string;
  /** A URL the assistant's function calls are posted to. */
  functionUrl?: string;
  /** The model (`gpt-4o-mini`, ...). */
  model?: string;
  /** System prompts. */
  systemMessages?: string[];
  /** Example assistant messages. */
  assistantMessages?: string[];
  /** Example user messages. */
  userMessages?: string[];
  /** The answer's token limit. */
  maxTokens?: number;
}

/** What `openai().setSettings` takes: the settings of every integration, the API key and speech to text. */
export interface OpenaiSettingsInput extends BotSettingsInput {
  /** The stored API key the settings use. */
  openaiCredsId: string;
  /** Transcribe voice notes before the bot reads them. */
  speechToText?: boolean;
}

/** A stored OpenAI API key. */
export interface OpenaiCreds {
  /** Its id (`openaiCredsId`). */
  id: string;
  /** Its name. */
  name: string;
  /** The key, as the server stores it. */
  apiKey: string;
  /** The instance's id. */
  instanceId: string;
  /** ISO timestamp. */
  createdAt: string;
  /** ISO timestamp. */
  updatedAt: string;
}

/**
 * OpenAI bots bound to the instance (`gw.openai()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const creds = (await gw.openai().createCreds("main", "sk-...")).data;
 * await gw.openai().create({ openaiCredsId: creds.id, botType: "chatCompletion", model: "gpt-4o-mini", maxTokens: 300, triggerType: "all" });
 * ```
 */
export class OpenaiResource extends BotResource<OpenaiInput, OpenaiSettingsInput> {
  /** @ignore */
  protected readonly routes = ROUTE.openai;
  /** @ignore */
  protected readonly bodies = { bot: OPENAI_BODY, settings: OPENAI_SETTINGS_BODY };

  /** Store an API key under a name (`POST /openai/creds`); a known key or name is refused. */
  async createCreds(name: string, apiKey: string, options?: CallOptions): Promise<ApiResponse<OpenaiCreds>> {
    const body = readBody(OPENAI_CREDS_BODY, { name, apiKey });
    return await this.call(ROUTE.openai.createCreds, { body }, options);
  }

  /** The stored API keys (`GET /openai/creds`). */
  async findCreds(options?: CallOptions): Promise<ApiResponse<OpenaiCreds[]>> {
    return await this.call(ROUTE.openai.findCreds, {}, options);
  }

  /** Delete a stored API key (`DELETE /openai/creds/{id}`); one still in use is refused (500). */
  async deleteCreds(
    id: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ openaiCreds: { id: string } }>> {
    return await this.call(
      ROUTE.openai.deleteCreds,
      { params: { id: recordId("credentials", id) } },
      options,
    );
  }

  /** The models a stored key may use (`GET /openai/getModels`; default the settings' key). */
  async getModels(
    query: { openaiCredsId?: string } = {},
    options?: CallOptions,
  ): Promise<ApiResponse<unknown[]>> {
    const openaiCredsId = query.openaiCredsId === undefined
      ? undefined
      : recordId("credentials", query.openaiCredsId);
    return await this.call(ROUTE.openai.getModels, { query: compact({ openaiCredsId }) }, options);
  }
}
