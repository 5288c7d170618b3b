/**
 * `WebhookConfigDto`: the body of `POST /webhook/set/{instance}` and its event names (contract §5.3).
 *
 * @module
 */

import { type BodySpec, readBody } from "./body_spec.ts";
import { RequestDto } from "./request_dto.ts";
import type { Problems } from "./validate.ts";
import { WEBHOOK_CONFIG_EVENTS } from "../webhooks/events/names.ts";

export { WEBHOOK_CONFIG_EVENTS };

const BY_DOTTED: ReadonlyMap<string, string> = new Map(
  Object.entries(WEBHOOK_CONFIG_EVENTS).map(([upper, dotted]) => [dotted, upper]),
);

/** The UPPER_SNAKE name of an event given in either form (`messages.upsert`), or null when unknown. */
export function webhookEventName(name: string): string | null {
  const trimmed = name.trim();
  if (Object.hasOwn(WEBHOOK_CONFIG_EVENTS, trimmed)) return trimmed;
  return BY_DOTTED.get(trimmed.toLowerCase()) ?? null;
}

/** Read an `events` list, converting dotted names; records one message per unknown name. */
export function readWebhookEvents(problems: Problems, field: string, value: unknown): string[] | undefined {
  const list = problems.array(field, value);
  if (list === undefined) return undefined;
  const events: string[] = [];
  list.forEach((item, index) => {
    const name = typeof item === "string" ? webhookEventName(item) : null;
    if (name === null) {
      problems.add(
        `${field}[${index}] ${JSON.stringify(item)} is not a webhook event (use UPPER_SNAKE names such as ` +
          `"MESSAGES_UPSERT"; see WEBHOOK_CONFIG_EVENTS)`,
      );
    } else if (!events.includes(name)) events.push(name);
  });
  return events;
}

/** Read webhook `headers`: an object of string values. */
export function readHeaders(
  problems: Problems,
  field: string,
  value: unknown,
): Record<string, string> | undefined {
  const headers = problems.object(field, value);
  if (headers === undefined) return undefined;
  for (const [name, item] of Object.entries(headers)) {
    if (typeof item !== "string") problems.add(`${field}.${name} must be a string`);
  }
  return headers as Record<string, string>;
}

/** Read a webhook URL: http(s) only, since the server silently skips anything else. */
export function readWebhookUrl(problems: Problems, field: string, value: unknown): string | undefined {
  const url = problems.text(field, value, { required: true });
  if (url !== undefined && !/^https?:\/\/\S+$/i.test(url.trim())) {
    problems.add(`${field} must be an http(s) URL`);
    return undefined;
  }
  return url?.trim();
}

/**
 * The body of `/webhook/set`: the fields wrapped in `webhook`; `enabled` defaults to true, `byEvents` and
 * `base64` to false, `headers` to `{}` and `events` to `[]` (names given dotted or UPPER_SNAKE).
 */
export const WEBHOOK_CONFIG_BODY: BodySpec = {
  what: "webhook configuration",
  wrap: "webhook",
  requiredNotEmpty: true,
  fields: {
    enabled: { type: "boolean", required: true, default: true },
    url: { type: "string", required: true, read: readWebhookUrl },
    headers: { type: "object", default: {}, read: readHeaders },
    byEvents: { type: "boolean", default: false },
    base64: { type: "boolean", default: false },
    events: {
      type: "array",
      default: [],
      read: readWebhookEvents,
      server: {
        type: "array",
        minItems: 0,
        items: { type: "string", enum: Object.keys(WEBHOOK_CONFIG_EVENTS) },
      },
    },
  },
};

/** What `WebhookConfigDto.from` accepts. */
export interface WebhookConfigInput {
  /** Where the server posts events. */
  url: string;
  /** Default true. */
  enabled?: boolean;
  /** UPPER_SNAKE or dotted names; empty (the default) means every event. */
  events?: string[];
  /** Post each event to `<url>/<event-kebab>`. Default false. */
  byEvents?: boolean;
  /** Include media as base64. Default false. */
  base64?: boolean;
  /** Headers the server sends with every call (`jwt_key` turns into a signed Bearer token). */
  headers?: Record<string, string>;
}

/** A `WebhookConfigDto`'s fields: the wrapped body (`webhook`), and each input setting filled in. */
export interface WebhookConfigDto {
  /** The webhook as sent: `events` holds UPPER_SNAKE names and is always an array. */
  readonly webhook: Readonly<Required<WebhookConfigInput>>;
}

/**
 * A validated webhook configuration; `toJSON()` gives the server's wrapped body `{ webhook: {...} }`.
 *
 * @example
 * ```ts
 * import { WebhookConfigDto } from "@gw/gateway";
 * WebhookConfigDto.from({ url: "https://example.com/hook", events: ["messages.upsert"] }).toJSON();
 * // { webhook: { enabled: true, url: "https://example.com/hook", headers: {}, byEvents: false, base64: false, events: ["MESSAGES_UPSERT"] } }
 * ```
 */
export class WebhookConfigDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: WebhookConfigInput | WebhookConfigDto): WebhookConfigDto {
    if (input instanceof WebhookConfigDto) return input;
    return new WebhookConfigDto(readBody(WEBHOOK_CONFIG_BODY, input));
  }

  /** Type only: the settings below are read from `webhook`, they are not fields of the body. */
  declare readonly "~readFromBody"?: "url" | "enabled" | "events" | "byEvents" | "base64" | "headers";

  /** Where the server posts events (`webhook.url`). */
  get url(): string {
    return this.webhook.url;
  }

  /** Whether the webhook is on (`webhook.enabled`, default true). */
  get enabled(): boolean {
    return this.webhook.enabled;
  }

  /** The events, as UPPER_SNAKE names (`webhook.events`; empty means every event). */
  get events(): readonly string[] {
    return this.webhook.events;
  }

  /** Whether each event goes to `<url>/<event-kebab>` (`webhook.byEvents`, default false). */
  get byEvents(): boolean {
    return this.webhook.byEvents;
  }

  /** Whether media is included as base64 (`webhook.base64`, default false). */
  get base64(): boolean {
    return this.webhook.base64;
  }

  /** The headers the server sends with every call (`webhook.headers`). */
  get headers(): Readonly<Record<string, string>> {
    return this.webhook.headers;
  }
}
