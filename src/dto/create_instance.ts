/**
 * `CreateInstanceDto`: the body of `POST /instance/create`.
 *
 * @module
 */

import { type BodySpec, type FieldSpec, readBody } from "./body_spec.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { SETTING_FIELDS } from "./settings.ts";
import type { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";
import { readHeaders, readWebhookEvents, readWebhookUrl } from "./webhook_config.ts";

/** Integrations the server knows. */
export const INTEGRATIONS: readonly ["WHATSAPP-BAILEYS", "WHATSAPP-BUSINESS", "EVOLUTION"] = [
  "WHATSAPP-BAILEYS",
  "WHATSAPP-BUSINESS",
  "EVOLUTION",
];

/** The fields of a `CreateInstanceDto`: what `CreateInstanceDto.from` accepts, and (normalized) what it holds. */
export interface CreateInstanceDto {
  /** Instance name; must be non-empty (the server answers a confusing 403 without it). */
  readonly instanceName: string;
  /** Default `WHATSAPP-BAILEYS`. */
  readonly integration?: "WHATSAPP-BAILEYS" | "WHATSAPP-BUSINESS" | "EVOLUTION";
  /** The instance api key (generated when omitted); required for WHATSAPP-BUSINESS. */
  readonly token?: string;
  /** Phone number: asks for a pairing code (Baileys), or the phone number id (WHATSAPP-BUSINESS). */
  readonly number?: string;
  /** Meta business id. */
  readonly businessId?: string;
  /** Connect at once and return a QR code (Baileys). */
  readonly qrcode?: boolean;
  /** Reject calls. */
  readonly rejectCall?: boolean;
  /** Message sent to rejected callers. */
  readonly msgCall?: string;
  /** Ignore groups. */
  readonly groupsIgnore?: boolean;
  /** Always appear online. */
  readonly alwaysOnline?: boolean;
  /** Mark incoming messages read. */
  readonly readMessages?: boolean;
  /** Mark statuses seen. */
  readonly readStatus?: boolean;
  /** Sync the full history on connect. */
  readonly syncFullHistory?: boolean;
  /** Wavoip token. */
  readonly wavoipToken?: string;
  /** Proxy host. */
  readonly proxyHost?: string;
  /** Proxy port. */
  readonly proxyPort?: string | number;
  /** `http`, `https`, `socks4` or `socks5`. */
  readonly proxyProtocol?: string;
  /** Proxy user. */
  readonly proxyUsername?: string;
  /** Proxy password. */
  readonly proxyPassword?: string;
  /** Webhook to store with the instance. */
  readonly webhook?: {
    /** URL. */
    url: string;
    /** Per-event URLs. */
    byEvents?: boolean;
    /** Media as base64. */
    base64?: boolean;
    /** Headers sent with every call. */
    headers?: Record<string, string>;
    /** Event names (UPPER_SNAKE or dotted); always sent as an array (empty: every event). */
    events?: string[];
  };
  /** Other fields the server sends or accepts. */
  readonly [key: string]: unknown;
}

/** Proxy protocols. */
export const PROXY_PROTOCOLS: readonly ["http", "https", "socks4", "socks5"] = [
  "http",
  "https",
  "socks4",
  "socks5",
];

function readOptionalPort(problems: Problems, field: string, value: unknown): string | undefined {
  return value === undefined ? undefined : readPort(problems, field, value);
}

function readInstanceWebhook(problems: Problems, field: string, value: unknown): unknown {
  const webhook = problems.object(field, value);
  if (!webhook) return undefined;
  return compact({
    url: readWebhookUrl(problems, `${field}.url`, webhook.url),
    byEvents: problems.bool(`${field}.byEvents`, webhook.byEvents),
    base64: problems.bool(`${field}.base64`, webhook.base64),
    headers: readHeaders(problems, `${field}.headers`, webhook.headers),
    // The server reads `events.length` without a check: an absent list fails the create.
    events: readWebhookEvents(problems, `${field}.events`, webhook.events) ?? [],
  });
}

/** A Cloud API instance needs its token and number. */
function requireBusinessCredentials(
  problems: Problems,
  body: Record<string, unknown>,
  input: Record<string, unknown>,
) {
  if (body.integration !== "WHATSAPP-BUSINESS") return;
  if (!input.token) problems.add("token is required for WHATSAPP-BUSINESS");
  if (!input.number) problems.add("number is required for WHATSAPP-BUSINESS");
}

const TEXT: FieldSpec = { type: "string" };
const UNLISTED_TEXT: FieldSpec = { type: "string", server: false };

/**
 * The body of `/instance/create`: the server's schema lists the name, token, number and settings; the request
 * object also checks the integration, proxy and webhook, and sends other keys as given.
 */
export const CREATE_INSTANCE_BODY: BodySpec = {
  what: "instance creation",
  fields: {
    instanceName: { type: "string", required: true, serverRequired: false, serverNotEmpty: true, trim: true },
    integration: { type: "string", values: INTEGRATIONS, default: "WHATSAPP-BAILEYS", server: false },
    token: TEXT,
    number: { type: "string", recipient: true, server: { type: "string" } },
    businessId: TEXT,
    qrcode: { type: "boolean", strictBoolean: true },
    ...SETTING_FIELDS,
    wavoipToken: UNLISTED_TEXT,
    proxyHost: UNLISTED_TEXT,
    proxyPort: { type: "string", read: readOptionalPort, server: false },
    proxyProtocol: { type: "string", values: PROXY_PROTOCOLS, server: false },
    proxyUsername: UNLISTED_TEXT,
    proxyPassword: UNLISTED_TEXT,
    webhook: { type: "object", read: readInstanceWebhook, server: false },
  },
  check: requireBusinessCredentials,
  passThrough: true,
};

/**
 * A validated instance creation request.
 *
 * @example
 * ```ts
 * import { CreateInstanceDto } from "@gw/gateway";
 * CreateInstanceDto.from({ instanceName: "sales", qrcode: true }).toJSON();
 * // { instanceName: "sales", integration: "WHATSAPP-BAILEYS", qrcode: true }
 * ```
 */
export class CreateInstanceDto extends RequestDto {
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: RequestInput<CreateInstanceDto> | CreateInstanceDto): CreateInstanceDto {
    if (input instanceof CreateInstanceDto) return input;
    return new CreateInstanceDto(readBody(CREATE_INSTANCE_BODY, input));
  }
}

/** Read a TCP port given as a number or a string; the server wants a string. */
export function readPort(problems: Problems, field: string, value: unknown): string | undefined {
  const text = typeof value === "number" ? String(value) : value;
  if (
    typeof text !== "string" || !/^\d{1,5}$/.test(text.trim()) || Number(text) < 1 || Number(text) > 65535
  ) {
    problems.add(`${field} must be a port number between 1 and 65535`);
    return undefined;
  }
  return text.trim();
}
