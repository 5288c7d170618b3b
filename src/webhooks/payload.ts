import { type ResolvedSender, resolveSender } from "../address/sender.ts";
import { isRecord, nonEmptyString as str } from "../util/json_shape.ts";
import type { WebhookEventData } from "./events/data.ts";
import {
  normalizeWebhookEvent,
  type WebhookEventKindOf,
  type WebhookEventNameOf,
  type WebhookEventSpelling,
} from "./events/names.ts";

export { dottedWebhookEvent, eventLabel, normalizeWebhookEvent, WEBHOOK_EVENTS } from "./events/names.ts";

/** The payload a handler of `S` receives, `data` typed by the event (a union for several names). */
export type WebhookPayloadOf<S extends WebhookEventSpelling> = S extends WebhookEventSpelling
  ? WebhookPayloadDto<WebhookEventData[WebhookEventNameOf<S>]> & { readonly event: WebhookEventKindOf<S> }
  : never;

type Json = Record<string, unknown>;

const PN_SUFFIX = "@s.whatsapp.net";

/** The phone number (digits) of a sender's phone-number JID (its device suffix dropped). Internal. */
export function phoneOfSender(jid: string | undefined): string | undefined {
  if (jid === undefined || !jid.endsWith(PN_SUFFIX)) return undefined;
  let end = jid.length - PN_SUFFIX.length;
  const device = jid.indexOf(":"); // `5511...:12@s.whatsapp.net`: the number is before the device
  if (device !== -1 && device < end) end = device;
  if (end === 0) return undefined;
  for (let at = 0; at < end; at++) {
    const code = jid.charCodeAt(at);
    if (code < 48 || code > 57) return undefined; // digits only
  }
  return jid.slice(0, end);
}

/** Where a payload came from, besides its body. */
export interface WebhookPayloadContext {
  /** Instance name taken from the URL, used when the body has none. */
  instance?: string;
  /** Event name taken from the byEvents URL suffix, used when the body has none. */
  event?: string;
  /** Delivery id (`webhook-id` header or a digest of the raw body). */
  deliveryId?: string;
  /** When the webhook arrived (epoch ms; default now). */
  receivedAt?: number;
}

/**
 * One webhook envelope with the event name normalised and typed accessors; `senderJid` and `chatJid`
 * prefer the phone-number JID over an `@lid` one whenever the payload carries it.
 *
 * @example
 * ```ts
 * import { WebhookPayloadDto } from "@gw/gateway";
 * const key = { remoteJid: "1@lid", remoteJidAlt: "5511999999999@s.whatsapp.net", fromMe: false };
 * const data = { key, message: { conversation: "hi" } };
 * const payload = WebhookPayloadDto.from({ event: "messages.upsert", data })!;
 * payload.event; // "MESSAGES_UPSERT"
 * payload.text; // "hi"
 * payload.senderJid; // "5511999999999@s.whatsapp.net"
 * ```
 */
export class WebhookPayloadDto<Data = unknown> {
  /** Canonical UPPER_SNAKE kind (`MESSAGES_UPSERT`). */
  readonly event: string;
  /** The event name exactly as received (`messages.upsert`). */
  readonly rawEvent: string;
  /** Instance name, from the body or else the URL (empty string when neither has one). */
  readonly instance: string;
  /** The event data (`null` for `logout.instance` and `remove.instance`). */
  readonly data: Data;
  /** Delivery id (`webhook-id` header or a digest of the raw body), when known. */
  readonly deliveryId?: string;
  /** When the webhook arrived (epoch ms). */
  readonly receivedAt: number;
  /** The whole envelope as received (including `apikey`: never log it whole, use `toJSON()`). */
  readonly raw: Readonly<Record<string, unknown>>;
  #sender: ResolvedSender | null | undefined;

  /** Build from an envelope; prefer {@link WebhookPayloadDto.from}, which validates. */
  constructor(raw: Record<string, unknown>, event: string, context: WebhookPayloadContext) {
    this.raw = raw;
    this.event = event;
    this.rawEvent = typeof raw.event === "string" ? raw.event : context.event ?? event;
    this.instance = str(raw.instance) ?? context.instance ?? "";
    this.data = (raw.data ?? null) as Data;
    this.deliveryId = context.deliveryId;
    this.receivedAt = context.receivedAt ?? Date.now();
  }

  /** Validate a parsed envelope; null when it is not an object or has no usable event name. */
  static from(body: unknown, context: WebhookPayloadContext = {}): WebhookPayloadDto | null {
    if (!isRecord(body)) return null;
    const name = body.event;
    let kind: string | null = null;
    if (typeof name === "string") kind = normalizeWebhookEvent(name);
    else if (name === undefined && context.event !== undefined) kind = normalizeWebhookEvent(context.event);
    if (kind === null) return null;
    if (body.instance !== undefined && body.instance !== null && typeof body.instance !== "string") {
      return null;
    }
    return new WebhookPayloadDto(body, kind, context);
  }

  /** Whether this payload is of `kind` (any spelling); narrows `data`. */
  is<S extends WebhookEventSpelling>(kind: S): this is WebhookPayloadOf<S>;
  /** Whether this payload is of `kind`, a name known or not. */
  is(kind: string): boolean;
  is(kind: string): boolean {
    return normalizeWebhookEvent(kind) === this.event;
  }

  /** The webhook URL the server used, without the byEvents suffix (informational). */
  get destination(): string | undefined {
    return str(this.raw.destination);
  }

  /** `date_time` as sent (server local time with a literal `Z`, so not always UTC). */
  get dateTime(): string | undefined {
    return str(this.raw.date_time);
  }

  /** The instance's own JID, when the server sent it. */
  get sender(): string | undefined {
    return str(this.raw.sender);
  }

  /** The server's `SERVER_URL`, when sent. */
  get serverUrl(): string | undefined {
    return str(this.raw.server_url);
  }

  /** The `apikey` field (the instance token, when the server exposes it), or undefined. */
  get apikey(): string | undefined {
    return str(this.raw.apikey);
  }

  /** `data` when it is an object, else an empty object. */
  get dataObject(): Record<string, unknown> {
    return isRecord(this.data) ? this.data : {};
  }

  /** The Baileys message key (`data.key`), when present. */
  get key(): Record<string, unknown> | undefined {
    const key = this.dataObject.key;
    return isRecord(key) ? key : undefined;
  }

  /** Message id: `data.key.id`, or `data.keyId` (messages.update), or `data.id`. */
  get messageId(): string | undefined {
    const data = this.dataObject;
    return str(this.key?.id) ?? str(data.keyId) ?? str(data.id);
  }

  /** Chat JID exactly as sent: `data.key.remoteJid` or `data.remoteJid`. May be an `@lid` JID. */
  get remoteJid(): string | undefined {
    return str(this.key?.remoteJid) ?? str(this.dataObject.remoteJid);
  }

  /** Whether the message was sent by this instance (`key.fromMe`); undefined when not a message event. */
  get fromMe(): boolean | undefined {
    const value = this.key?.fromMe ?? this.dataObject.fromMe;
    return typeof value === "boolean" ? value : undefined;
  }

  /** Group participant JID as sent (`key.participant`), when the message is from a group. */
  get participant(): string | undefined {
    return str(this.key?.participant) ?? str(this.dataObject.participant);
  }

  /** `lid` or `pn`, when the server reports the addressing mode (`key.addressingMode`). */
  get addressingMode(): string | undefined {
    return str(this.key?.addressingMode);
  }

  /** Whether the chat is a group (`@g.us`). */
  get isGroup(): boolean {
    return this.remoteJid?.endsWith("@g.us") ?? false;
  }

  /** The message's sender and reply address over every sender field (see `resolveSender`), or null. */
  get resolvedSender(): ResolvedSender | null {
    if (this.#sender === undefined) this.#sender = resolveSender(this.data);
    return this.#sender;
  }

  /** The chat to reply to: a phone-number JID when the payload carries one, else `remoteJid`. */
  get chatJid(): string | undefined {
    return this.resolvedSender?.replyTo ?? this.remoteJid;
  }

  /** Who sent the message, as a phone-number JID when known; for our own message, the instance's JID. */
  get senderJid(): string | undefined {
    if (this.fromMe === true) return this.sender ?? this.chatJid;
    if (!this.isGroup) return this.chatJid;
    const phone = this.resolvedSender?.phone;
    return phone !== undefined ? `${phone}@s.whatsapp.net` : this.participant;
  }

  /** The sender's `@lid` JID, when the payload carries one. */
  get senderLid(): string | undefined {
    return this.resolvedSender?.lid;
  }

  /** The sender's phone number (digits of a phone-number JID), when known. */
  get senderPhone(): string | undefined {
    return phoneOfSender(this.senderJid);
  }

  /** The sender's display name (`data.pushName`). */
  get pushName(): string | undefined {
    return str(this.dataObject.pushName);
  }

  /** The message object (`data.message`), when present. */
  get message(): Record<string, unknown> | undefined {
    const message = this.dataObject.message;
    return isRecord(message) ? message : undefined;
  }

  /** Message type (`data.messageType`, else the first key of `data.message`). */
  get messageType(): string | undefined {
    const type = str(this.dataObject.messageType);
    if (type !== undefined) return type;
    const message = this.message;
    if (message === undefined) return undefined;
    return Object.keys(message).find((key) => key !== "messageContextInfo");
  }

  /** The text of a message: conversation, extended text, or a media caption. */
  get text(): string | undefined {
    const message = this.message;
    if (message === undefined) return undefined;
    const direct = str(message.conversation);
    if (direct !== undefined) return direct;
    for (const field of ["extendedTextMessage", "imageMessage", "videoMessage", "documentMessage"]) {
      const part = message[field];
      if (isRecord(part)) {
        const text = str(part.text) ?? str(part.caption);
        if (text !== undefined) return text;
      }
    }
    return undefined;
  }

  /** Message timestamp in epoch ms (`data.messageTimestamp` is in seconds). */
  get messageTimestamp(): number | undefined {
    const value = this.dataObject.messageTimestamp;
    const seconds = typeof value === "string" ? Number(value) : value;
    return typeof seconds === "number" && Number.isFinite(seconds) ? seconds * 1000 : undefined;
  }

  /** Delivery status of a `messages.update` (`SERVER_ACK`, `DELIVERY_ACK`, `READ`, ...). */
  get status(): string | undefined {
    return str(this.dataObject.status);
  }

  /** Connection state of a `connection.update` (`open`, `connecting`, `close`, `refused`). */
  get connectionState(): string | undefined {
    return this.event === "CONNECTION_UPDATE" ? str(this.dataObject.state) : undefined;
  }

  /** Reason code of a `connection.update` (`statusReason`). */
  get statusReason(): number | undefined {
    const value = this.dataObject.statusReason;
    return typeof value === "number" ? value : undefined;
  }

  /** The raw QR string of a `qrcode.updated` (`data.qrcode.code`). */
  get qrCode(): string | undefined {
    const qrcode = this.dataObject.qrcode;
    return isRecord(qrcode) ? str(qrcode.code) : undefined;
  }

  /** The QR image of a `qrcode.updated` as a `data:image/png;base64,...` URL. */
  get qrCodeBase64(): string | undefined {
    const qrcode = this.dataObject.qrcode;
    return isRecord(qrcode) ? str(qrcode.base64) : undefined;
  }

  /** The pairing code of a `qrcode.updated`, when a number was given to connect. */
  get pairingCode(): string | undefined {
    const qrcode = this.dataObject.qrcode;
    return isRecord(qrcode) ? str(qrcode.pairingCode) : undefined;
  }

  /** Whether this is an inbound message: `messages.upsert` not sent by this instance. */
  get isInboundMessage(): boolean {
    return this.event === "MESSAGES_UPSERT" && this.fromMe === false && this.messageId !== undefined;
  }

  /** A plain object for logs: the envelope with `apikey` redacted. */
  toJSON(): Record<string, unknown> {
    return { ...this.raw, apikey: this.raw.apikey == null ? this.raw.apikey : "[REDACTED]" };
  }
}
