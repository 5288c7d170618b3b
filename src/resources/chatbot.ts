/**
 * What the bot integrations share: the ten routes each registers (contract §2.9) as typed, checked methods.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { type BodySpec, readBody } from "../dto/body_spec.ts";
import { BOT_STATUS_BODY, IGNORE_JID_BODY } from "../dto/chatbot_bodies.ts";
import { invalid } from "./args.ts";
import { type CallOptions, Resource } from "./resource.ts";
import type { RouteEntry } from "./routes.ts";
import type {
  BotInput,
  BotRow,
  BotSession,
  BotSettingsInput,
  BotSettingsRow,
  ChangeStatusResponse,
  DeleteBotResponse,
  IgnoreJidsResponse,
  SessionStatus,
} from "./chatbot_types.ts";

/** The rows of one bot integration's ten shared routes (`ROUTE.typebot`, `ROUTE.dify`, ...). */
export interface BotRoutes {
  /** `create`. */
  readonly create: RouteEntry;
  /** `find`. */
  readonly find: RouteEntry;
  /** `fetch`. */
  readonly fetch: RouteEntry;
  /** `update`. */
  readonly update: RouteEntry;
  /** `delete`. */
  readonly delete: RouteEntry;
  /** `settings`. */
  readonly settings: RouteEntry;
  /** `fetchSettings`. */
  readonly fetchSettings: RouteEntry;
  /** `changeStatus`. */
  readonly changeStatus: RouteEntry;
  /** `fetchSessions`. */
  readonly fetchSessions: RouteEntry;
  /** `ignoreJid`. */
  readonly ignoreJid: RouteEntry;
}

/** A record id for an `{id}` path segment: a non-blank string. */
export function recordId(what: string, id: unknown): string {
  if (typeof id !== "string" || id.trim() === "") invalid(what, "id must be a non-empty string");
  return id.trim();
}

/**
 * A bot integration: the resource of `gw.typebot()`, `gw.openai()`, `gw.dify()`, `gw.flowise()`,
 * `gw.evolutionBot()`, `gw.n8n()` and `gw.evoai()`. `T` is what the integration's `create` takes.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const bot = (await gw.dify().create({ botType: "chatBot", apiUrl: "https://dify.example.com/v1", apiKey: "app-1", triggerType: "all" })).data;
 * await gw.dify().update(bot.id, { botType: "chatBot", apiUrl: "https://dify.example.com/v1", triggerType: "none" });
 * await gw.dify().delete(bot.id);
 * ```
 */
export abstract class BotResource<T extends BotInput, S extends BotSettingsInput = BotSettingsInput>
  extends Resource {
  /**
   * The integration's rows.
   *
   * @ignore
   */
  protected abstract readonly routes: BotRoutes;
  /**
   * The declarations of its bot and settings bodies.
   *
   * @ignore
   */
  protected abstract readonly bodies: { readonly bot: BodySpec; readonly settings: BodySpec };

  /** Create a bot (`POST /<integration>/create`); the server answers the stored row, `id` included. */
  async create(bot: T, options?: CallOptions): Promise<ApiResponse<BotRow<T>>> {
    return await this.call(this.routes.create, { body: readBody(this.bodies.bot, bot) }, options);
  }

  /** The instance's bots of this integration (`GET /<integration>/find`). */
  async find(options?: CallOptions): Promise<ApiResponse<BotRow<T>[]>> {
    return await this.call(this.routes.find, {}, options);
  }

  /** One bot by id (`GET /<integration>/fetch/{id}`); `data` is null when there is none. */
  async fetch(id: string, options?: CallOptions): Promise<ApiResponse<BotRow<T> | null>> {
    return await this.call(this.routes.fetch, { params: { id: recordId("bot", id) } }, options);
  }

  /** Replace a bot with the whole bot (`PUT /<integration>/update/{id}`); an unknown id answers 500. */
  async update(id: string, bot: T, options?: CallOptions): Promise<ApiResponse<BotRow<T>>> {
    const request = { params: { id: recordId("bot", id) }, body: readBody(this.bodies.bot, bot) };
    return await this.call(this.routes.update, request, options);
  }

  /** Delete a bot and its sessions (`DELETE /<integration>/delete/{id}`). */
  async delete(id: string, options?: CallOptions): Promise<ApiResponse<DeleteBotResponse>> {
    return await this.call(this.routes.delete, { params: { id: recordId("bot", id) } }, options);
  }

  /**
   * Set the integration's defaults for the instance (`POST /<integration>/settings`): the session
   * settings new bots start with, the ignore list, and the fallback bot (`fallbackId`).
   */
  async setSettings(settings: S, options?: CallOptions): Promise<ApiResponse<BotSettingsRow>> {
    return await this.call(this.routes.settings, { body: readBody(this.bodies.settings, settings) }, options);
  }

  /** The integration's settings (`GET /<integration>/fetchSettings`), or the server's defaults. */
  async fetchSettings(options?: CallOptions): Promise<ApiResponse<BotSettingsRow>> {
    return await this.call(this.routes.fetchSettings, {}, options);
  }

  /** Open, pause, close or delete a chat's sessions (`POST /<integration>/changeStatus`). */
  async changeStatus(
    remoteJid: string,
    status: SessionStatus,
    options?: CallOptions,
  ): Promise<ApiResponse<ChangeStatusResponse>> {
    const body = readBody(BOT_STATUS_BODY, { remoteJid, status });
    return await this.call(this.routes.changeStatus, { body }, options);
  }

  /** A bot's sessions (`GET /<integration>/fetchSessions/{id}`). */
  async fetchSessions(id: string, options?: CallOptions): Promise<ApiResponse<BotSession[]>> {
    return await this.call(this.routes.fetchSessions, { params: { id: recordId("bot", id) } }, options);
  }

  /**
   * Add a chat to the ignore list, or remove it (`POST /<integration>/ignoreJid`). The server needs the
   * settings first (else 500): creating a bot or `setSettings` makes them.
   */
  async ignoreJid(
    remoteJid: string,
    action: "add" | "remove",
    options?: CallOptions,
  ): Promise<ApiResponse<IgnoreJidsResponse>> {
    const body = readBody(IGNORE_JID_BODY, { remoteJid, action });
    return await this.call(this.routes.ignoreJid, { body }, options);
  }
}
