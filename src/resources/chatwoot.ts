/**
 * Chatwoot (`/chatwoot`): the instance's Chatwoot inbox configuration, and the route Chatwoot calls back.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { readBody } from "../dto/body_spec.ts";
import { CHATWOOT_BODY } from "../dto/integration_bodies.ts";
import { isRecord } from "../util/json_shape.ts";
import { invalid } from "./args.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";

/** What `chatwoot().set` takes (the server's `ChatwootDto`). */
export interface ChatwootInput {
  /** Default true. */
  enabled?: boolean;
  /** The Chatwoot account's id. */
  accountId: string;
  /** A Chatwoot agent's or bot's access token. */
  token: string;
  /** The Chatwoot server (`https://chatwoot.example.com`). */
  url: string;
  /** Sign each agent message with the agent's name. Default false. */
  signMsg?: boolean;
  /** What separates the signature from the message. */
  signDelimiter?: string;
  /** The inbox's name (default: the instance's). */
  nameInbox?: string;
  /** Reopen a resolved conversation on a new message. Default false. */
  reopenConversation?: boolean;
  /** Open new conversations as pending. Default false. */
  conversationPending?: boolean;
  /** Create the inbox in Chatwoot (the server then calls the Chatwoot server). */
  autoCreate?: boolean;
  /** Import the contacts into Chatwoot. */
  importContacts?: boolean;
  /** Merge Brazilian numbers with and without the ninth digit. */
  mergeBrazilContacts?: boolean;
  /** Import the message history into Chatwoot. */
  importMessages?: boolean;
  /** With `importMessages`: how many days back. */
  daysLimitImportMessages?: number;
  /** Chats that are not sent to Chatwoot. */
  ignoreJids?: string[];
  /** The number of the bot contact `autoCreate` makes. */
  number?: string;
  /** The bot contact's organization. */
  organization?: string;
  /** The bot contact's logo URL. */
  logo?: string;
}

/** The Chatwoot configuration as the server answers it (`webhook_url` is what to give Chatwoot). */
export type ChatwootRow = Partial<ChatwootInput> & {
  /** The URL Chatwoot must post its events to: `<server>/chatwoot/webhook/<instance>`. */
  webhook_url: string;
  /** Other fields the server stores. */
  [key: string]: unknown;
};

/**
 * The instance's Chatwoot inbox (`gw.chatwoot()`).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * const row = (await gw.chatwoot().set({ accountId: "1", token: "...", url: "https://chatwoot.example.com" })).data;
 * console.log(row.webhook_url); // give this URL to Chatwoot's inbox
 * ```
 */
export class ChatwootResource extends Resource {
  /** Configure the inbox (`POST /chatwoot/set`); `autoCreate` has the server create it at `url`. */
  async set(config: ChatwootInput, options?: CallOptions): Promise<ApiResponse<ChatwootRow>> {
    return await this.call(ROUTE.chatwoot.set, { body: readBody(CHATWOOT_BODY, config) }, options);
  }

  /** The stored configuration (`GET /chatwoot/find`; `enabled: false` and empty fields when none). */
  async find(options?: CallOptions): Promise<ApiResponse<ChatwootRow>> {
    return await this.call(ROUTE.chatwoot.find, {}, options);
  }

  /**
   * Post a Chatwoot event as Chatwoot would (`POST /chatwoot/webhook`, no api key), for a relay that
   * receives Chatwoot's events itself; the event is sent as given.
   */
  async webhook(event: Record<string, unknown>, options?: CallOptions): Promise<ApiResponse<unknown>> {
    if (!isRecord(event)) invalid("Chatwoot event", "event must be an object");
    return await this.call(ROUTE.chatwoot.webhook, { body: event }, options);
  }
}
