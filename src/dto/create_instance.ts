/**
 * `CreateInstanceDto`: the body of `POST /instance/create`.
 *
 * @module
 */

import { requireObject } from "./message_options.ts";
import { RequestDto, type RequestInput } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { readHeaders, readWebhookEvents, readWebhookUrl } from "./webhook_config.ts";
import { compact } from "../util/json_shape.ts";

/**
 * Integrations the server knows.
 *
 * @example
 * ```ts
 * import { INTEGRATIONS } from "./create_instance.ts";
 * INTEGRATIONS[0]; // "WHATSAPP-BAILEYS"
 * ```
 */
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

const BOOLEAN_SETTINGS = [
  "qrcode",
  "rejectCall",
  "groupsIgnore",
  "alwaysOnline",
  "readMessages",
  "readStatus",
  "syncFullHistory",
] as const;
const TEXT_FIELDS = [
  "token",
  "businessId",
  "msgCall",
  "wavoipToken",
  "proxyHost",
  "proxyUsername",
  "proxyPassword",
] as const;
const KNOWN: ReadonlySet<string> = new Set<string>([
  "instanceName",
  "integration",
  "number",
  "proxyPort",
  "proxyProtocol",
  "webhook",
  ...BOOLEAN_SETTINGS,
  ...TEXT_FIELDS,
]);

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
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { CreateInstanceDto } from "@gw/gateway";
   * CreateInstanceDto.from({ instanceName: "sales", webhook: { url: "https://example.com/hook", events: ["MESSAGES_UPSERT"] } });
   * ```
   */
  static from(input: RequestInput<CreateInstanceDto> | CreateInstanceDto): CreateInstanceDto {
    if (input instanceof CreateInstanceDto) return input;
    const record = requireObject(input, "instance creation");
    const problems = new Problems();
    const instanceName = problems.text("instanceName", record.instanceName, { required: true })?.trim();
    const integration = problems.oneOf("integration", record.integration ?? "WHATSAPP-BAILEYS", INTEGRATIONS);
    const number = record.number === undefined ? undefined : problems.recipient("number", record.number);
    const body: Record<string, unknown> = { instanceName, integration, number };
    for (const name of TEXT_FIELDS) body[name] = problems.text(name, record[name]);
    for (const name of BOOLEAN_SETTINGS) body[name] = problems.bool(name, record[name]);
    if (integration === "WHATSAPP-BUSINESS") {
      if (!record.token) problems.add("token is required for WHATSAPP-BUSINESS");
      if (!record.number) problems.add("number is required for WHATSAPP-BUSINESS");
    }
    if (record.proxyPort !== undefined) body.proxyPort = readPort(problems, "proxyPort", record.proxyPort);
    body.proxyProtocol = problems.oneOf("proxyProtocol", record.proxyProtocol, PROXY_PROTOCOLS);
    const webhook = problems.object("webhook", record.webhook);
    if (webhook) {
      body.webhook = compact({
        url: readWebhookUrl(problems, "webhook.url", webhook.url),
        byEvents: problems.bool("webhook.byEvents", webhook.byEvents),
        base64: problems.bool("webhook.base64", webhook.base64),
        headers: readHeaders(problems, "webhook.headers", webhook.headers),
        // The server reads `events.length` without a check: an absent list fails the create.
        events: readWebhookEvents(problems, "webhook.events", webhook.events) ?? [],
      });
    }
    for (const [name, value] of Object.entries(record)) {
      if (!KNOWN.has(name) && value !== undefined) body[name] = value;
    }
    problems.throwIfAny("instance creation");
    return new CreateInstanceDto(compact(body));
  }
}

/**
 * Proxy protocols.
 *
 * @example
 * ```ts
 * import { PROXY_PROTOCOLS } from "./create_instance.ts";
 * PROXY_PROTOCOLS.includes("socks5"); // true
 * ```
 */
export const PROXY_PROTOCOLS: readonly ["http", "https", "socks4", "socks5"] = [
  "http",
  "https",
  "socks4",
  "socks5",
];

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
