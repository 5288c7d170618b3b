/**
 * The instance's webhook configuration on the server (`/webhook/set`, `/webhook/find`).
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { WebhookConfigDto, type WebhookConfigInput } from "../dto/webhook_config.ts";
import { isRecord } from "../util/json_shape.ts";
import { invalid } from "./args.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type { WebhookRow } from "./types.ts";
import { generateWebhookSecret } from "../webhooks/signature.ts";
import { ValidationException } from "../errors.ts";

/** What {@link WebhooksResource.secure} takes. */
export interface SecureWebhookInput {
  /** Where the server posts webhooks (this receiver's URL, e.g. `https://example.com/gateway/webhook/sales`). */
  url: string;
  /** The JWT secret (default: a new random one). At least 32 characters, no surrounding whitespace. */
  secret?: string;
  /** Events to subscribe to (`[]`: every event); dotted names are converted. */
  events: string[];
  /** Post each event to `<url>/<event-kebab>`. */
  byEvents?: boolean;
  /** Include media as base64 in `messages.upsert`. */
  base64?: boolean;
  /** Other headers to send with each webhook (never `jwt_key`: that is the secret's place). */
  headers?: Record<string, string>;
}

/**
 * The receiver settings that match a webhook configured by {@link WebhooksResource.secure}: pass them to
 * `createWebhookHandler` (or put them in the configuration's `webhook` section).
 */
export interface SecureWebhookSettings {
  /** The receiver's signature settings: the server's own JWT, signed with the returned secret. */
  signature: { scheme: "jwt"; secret: string };
}

const MIN_SECRET_LENGTH = 32;

/**
 * Webhook configuration. `set` sends the server's wrapped body `{ webhook: {...} }` with `events` always an
 * array; `update` changes some fields of the stored configuration.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * await gw.webhooks().set({ url: "https://example.com/gateway/webhook/sales", events: ["MESSAGES_UPSERT"] });
 * await gw.webhooks().update({ byEvents: true });
 * ```
 */
export class WebhooksResource extends Resource {
  /** Replace the webhook config (`POST /webhook/set`); `enabled` defaults to true, `events` to `[]` (all). */
  async set(
    config: WebhookConfigInput | WebhookConfigDto,
    options?: CallOptions,
  ): Promise<ApiResponse<WebhookRow>> {
    const dto = WebhookConfigDto.from(config);
    return await this.call(ROUTE.webhook.set, { body: dto.toJSON() }, options);
  }

  /**
   * Configure the webhook so the server signs every delivery, and get the receiver settings that verify
   * it: one call, so sender and receiver cannot disagree. The server turns the `jwt_key` webhook header
   * into `authorization: Bearer <JWT>` (HS256, signed with the secret, valid 10 minutes); the receiver's
   * `jwt` scheme checks exactly that. Without `secret` a new random one is made. The secret is never
   * logged; keep the returned settings in your secret store.
   *
   * @example
   * ```ts
   * import { createWebhookHandler, GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * const receiver = await gw.webhooks().secure({
   *   url: "https://example.com/gateway/webhook/sales",
   *   events: ["MESSAGES_UPSERT", "CONNECTION_UPDATE"],
   * });
   * const handler = createWebhookHandler({ ...receiver });
   * ```
   */
  async secure(input: SecureWebhookInput, options?: CallOptions): Promise<SecureWebhookSettings> {
    if (!isRecord(input)) invalid("webhook configuration", "request must be an object");
    const secret = input.secret ?? generateWebhookSecret("jwt");
    const problems: string[] = [];
    if (typeof secret !== "string") problems.push("secret must be a string");
    else if (secret.trim() !== secret) problems.push("secret must not start or end with whitespace");
    else if (secret.length < MIN_SECRET_LENGTH) {
      problems.push(`secret must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    if (!Array.isArray(input.events)) problems.push("events must be an array ([] for every event)");
    if (typeof input.url !== "string" || !/^https?:\/\/[^\s]+$/i.test(input.url)) {
      problems.push("url must be an http(s) URL");
    }
    if (
      isRecord(input.headers) && Object.keys(input.headers).some((name) => name.toLowerCase() === "jwt_key")
    ) {
      problems.push("headers must not hold jwt_key: pass the secret as secret");
    }
    if (problems.length > 0) {
      throw new ValidationException(`Invalid webhook configuration: ${problems.join("; ")}`, {
        messages: problems,
      });
    }
    await this.set({
      url: input.url,
      enabled: true,
      events: input.events,
      byEvents: input.byEvents,
      base64: input.base64,
      headers: { ...input.headers, jwt_key: secret },
    }, options);
    return { signature: { scheme: "jwt", secret } };
  }

  /** The stored configuration (`GET /webhook/find`); `data` is null when none was ever set. */
  async find(options?: CallOptions): Promise<ApiResponse<WebhookRow | null>> {
    return await this.call(ROUTE.webhook.find, {}, options);
  }

  /** Merge `changes` into the stored row (`find`, then `set`); with no row, `changes` needs a `url`. */
  async update(
    changes: Partial<WebhookConfigInput>,
    options?: CallOptions,
  ): Promise<ApiResponse<WebhookRow>> {
    if (!isRecord(changes)) invalid("webhook configuration", "request must be an object");
    return await this.#merge((await this.find(options)).data, changes, options);
  }

  async #merge(
    row: WebhookRow | null,
    changes: Partial<WebhookConfigInput>,
    options?: CallOptions,
  ): Promise<ApiResponse<WebhookRow>> {
    const current: Partial<WebhookConfigInput> = isRecord(row)
      ? {
        url: row.url,
        enabled: row.enabled,
        events: Array.isArray(row.events) ? row.events : [],
        byEvents: row.webhookByEvents,
        base64: row.webhookBase64,
        headers: isRecord(row.headers) ? row.headers as Record<string, string> : undefined,
      }
      : {};
    const merged: Record<string, unknown> = { ...current };
    for (const [key, value] of Object.entries(changes)) if (value !== undefined) merged[key] = value;
    return await this.set(merged as unknown as WebhookConfigInput, options);
  }

  /**
   * Turn the stored webhook on, keeping its settings. The server empties `events` when a webhook is
   * disabled, and an empty list enabled means every event: so after `disable()` pass the list to restore
   * (`[]` for every event); without one, `enable()` throws `ValidationException` instead of subscribing to
   * everything.
   */
  async enable(events?: string[], options?: CallOptions): Promise<ApiResponse<WebhookRow>> {
    const row = (await this.find(options)).data;
    if (events === undefined && (!isRecord(row) || !Array.isArray(row.events) || row.events.length === 0)) {
      // The server empties the list on disable, and an empty list means "every event" once enabled.
      invalid(
        "webhook configuration",
        "the server keeps no event list for this webhook (it clears it on disable); pass the events to " +
          "enable(events), or [] for every event",
      );
    }
    return await this.#merge(
      row,
      events === undefined ? { enabled: true } : { enabled: true, events },
      options,
    );
  }

  /** Turn the stored webhook off (`update({ enabled: false })`). */
  async disable(options?: CallOptions): Promise<ApiResponse<WebhookRow>> {
    return await this.update({ enabled: false }, options);
  }
}
