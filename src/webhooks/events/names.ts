/**
 * Every event the server knows (2.3.6, its order): dotted name → `kind` (`payload.event`), `config` (for
 * `/webhook/set`, which refuses `settable: false`; `GROUP_UPDATE` for `groups.update`) and `path`.
 */
export const WEBHOOK_EVENT_TABLE = {
  "application.startup": {
    kind: "APPLICATION_STARTUP",
    config: "APPLICATION_STARTUP",
    path: "application-startup",
  },
  "qrcode.updated": { kind: "QRCODE_UPDATED", config: "QRCODE_UPDATED", path: "qrcode-updated" },
  "messages.set": { kind: "MESSAGES_SET", config: "MESSAGES_SET", path: "messages-set" },
  "messages.upsert": { kind: "MESSAGES_UPSERT", config: "MESSAGES_UPSERT", path: "messages-upsert" },
  "messages.edited": { kind: "MESSAGES_EDITED", config: "MESSAGES_EDITED", path: "messages-edited" },
  "messages.update": { kind: "MESSAGES_UPDATE", config: "MESSAGES_UPDATE", path: "messages-update" },
  "messages.delete": { kind: "MESSAGES_DELETE", config: "MESSAGES_DELETE", path: "messages-delete" },
  "send.message": { kind: "SEND_MESSAGE", config: "SEND_MESSAGE", path: "send-message" },
  "send.message.update": {
    kind: "SEND_MESSAGE_UPDATE",
    config: "SEND_MESSAGE_UPDATE",
    path: "send-message-update",
  },
  "contacts.set": { kind: "CONTACTS_SET", config: "CONTACTS_SET", path: "contacts-set" },
  "contacts.upsert": { kind: "CONTACTS_UPSERT", config: "CONTACTS_UPSERT", path: "contacts-upsert" },
  "contacts.update": { kind: "CONTACTS_UPDATE", config: "CONTACTS_UPDATE", path: "contacts-update" },
  "presence.update": { kind: "PRESENCE_UPDATE", config: "PRESENCE_UPDATE", path: "presence-update" },
  "chats.set": { kind: "CHATS_SET", config: "CHATS_SET", path: "chats-set" },
  "chats.upsert": { kind: "CHATS_UPSERT", config: "CHATS_UPSERT", path: "chats-upsert" },
  "chats.update": { kind: "CHATS_UPDATE", config: "CHATS_UPDATE", path: "chats-update" },
  "chats.delete": { kind: "CHATS_DELETE", config: "CHATS_DELETE", path: "chats-delete" },
  "groups.upsert": { kind: "GROUPS_UPSERT", config: "GROUPS_UPSERT", path: "groups-upsert" },
  "groups.update": { kind: "GROUPS_UPDATE", config: "GROUP_UPDATE", path: "groups-update" },
  "group-participants.update": {
    kind: "GROUP_PARTICIPANTS_UPDATE",
    config: "GROUP_PARTICIPANTS_UPDATE",
    path: "group-participants-update",
  },
  "connection.update": { kind: "CONNECTION_UPDATE", config: "CONNECTION_UPDATE", path: "connection-update" },
  "labels.edit": { kind: "LABELS_EDIT", config: "LABELS_EDIT", path: "labels-edit" },
  "labels.association": {
    kind: "LABELS_ASSOCIATION",
    config: "LABELS_ASSOCIATION",
    path: "labels-association",
  },
  "call": { kind: "CALL", config: "CALL", path: "call" },
  "typebot.start": { kind: "TYPEBOT_START", config: "TYPEBOT_START", path: "typebot-start" },
  "typebot.change-status": {
    kind: "TYPEBOT_CHANGE_STATUS",
    config: "TYPEBOT_CHANGE_STATUS",
    path: "typebot-change-status",
  },
  "remove.instance": { kind: "REMOVE_INSTANCE", config: "REMOVE_INSTANCE", path: "remove-instance" },
  "logout.instance": { kind: "LOGOUT_INSTANCE", config: "LOGOUT_INSTANCE", path: "logout-instance" },
  "instance.create": { kind: "INSTANCE_CREATE", config: "INSTANCE_CREATE", path: "instance-create" },
  "instance.delete": { kind: "INSTANCE_DELETE", config: "INSTANCE_DELETE", path: "instance-delete" },
  "status.instance": { kind: "STATUS_INSTANCE", config: "STATUS_INSTANCE", path: "status-instance" },
  // In the server's Events enum but not configurable in 2.3.6 (2.4 sends it).
  "messaging-history.set": {
    kind: "MESSAGING_HISTORY_SET",
    config: "MESSAGING_HISTORY_SET",
    path: "messaging-history-set",
    settable: false,
  },
} as const;

/** A dotted event name as the server puts it in webhook bodies (`messages.upsert`). */
export type WebhookEventName = keyof typeof WEBHOOK_EVENT_TABLE;

/** The UPPER_SNAKE kind of an event (`MESSAGES_UPSERT`): what `WebhookPayloadDto.event` holds. */
export type WebhookEventKind = (typeof WEBHOOK_EVENT_TABLE)[WebhookEventName]["kind"];

/** Every spelling of the event `N`: dotted, kind, lower-case kind, configuration name, byEvents suffix. */
export type WebhookEventSpellingsOf<N extends WebhookEventName> =
  | N
  | (typeof WEBHOOK_EVENT_TABLE)[N]["kind"]
  | Lowercase<(typeof WEBHOOK_EVENT_TABLE)[N]["kind"]>
  | (typeof WEBHOOK_EVENT_TABLE)[N]["config"]
  | (typeof WEBHOOK_EVENT_TABLE)[N]["path"];

/** Any accepted spelling of an event name (`messages.upsert`, `MESSAGES_UPSERT`, `messages-upsert`, ...). */
export type WebhookEventSpelling = { [N in WebhookEventName]: WebhookEventSpellingsOf<N> }[WebhookEventName];

/** The dotted name of a spelling (`WebhookEventNameOf<"MESSAGES_UPSERT">` is `"messages.upsert"`). */
export type WebhookEventNameOf<S extends WebhookEventSpelling> = {
  [N in WebhookEventName]: S extends WebhookEventSpellingsOf<N> ? N : never;
}[WebhookEventName];

/** The kind of a spelling (`WebhookEventKindOf<"messages.upsert">` is `"MESSAGES_UPSERT"`). */
export type WebhookEventKindOf<S extends WebhookEventSpelling> =
  (typeof WEBHOOK_EVENT_TABLE)[WebhookEventNameOf<S>]["kind"];

/** Every dotted event name, in the server's order. */
export const WEBHOOK_EVENT_NAMES: readonly WebhookEventName[] = Object.freeze(
  Object.keys(WEBHOOK_EVENT_TABLE) as WebhookEventName[],
);

/** Configuration name → dotted name, for every event `/webhook/set` accepts. */
export const WEBHOOK_CONFIG_EVENTS: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(
  WEBHOOK_EVENT_NAMES.flatMap((name) => {
    const row: { config: string; settable?: boolean } = WEBHOOK_EVENT_TABLE[name];
    return row.settable === false ? [] : [[row.config, name]];
  }),
));

/** Kind → dotted name for every event the server knows. */
export const WEBHOOK_EVENTS: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(
  WEBHOOK_EVENT_NAMES.map((name) => [WEBHOOK_EVENT_TABLE[name].kind, name]),
));

/** The metric label of a kind: `OTHER` for one the server does not know, so senders cannot grow the series. */
export function eventLabel(kind: string): string {
  return kind === "UNKNOWN" || Object.hasOwn(WEBHOOK_EVENTS, kind) ? kind : "OTHER";
}

// Configuration names unlike their kind (GROUP_UPDATE).
const ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  WEBHOOK_EVENT_NAMES.map((name) => WEBHOOK_EVENT_TABLE[name]).filter((row) => row.config !== row.kind)
    .map((row) => [row.config, row.kind]),
);

// The names seen in practice are few, and the hot path hits this every time.
const memo = new Map<string, string | null>();
const MEMO_LIMIT = 512;
const VALID = /^[A-Za-z][A-Za-z0-9]*(?:[._ -]+[A-Za-z0-9]+)*$/;

/**
 * The UPPER_SNAKE kind of an event name in any spelling, or null; unknown well-formed names are accepted.
 *
 * @example
 * ```ts
 * import { normalizeWebhookEvent } from "@gw/gateway/webhooks";
 * normalizeWebhookEvent("messages.upsert"); // "MESSAGES_UPSERT"

 * normalizeWebhookEvent("GROUP_UPDATE"); // "GROUPS_UPDATE"
 * normalizeWebhookEvent("../x"); // null
 * ```
 */
export function normalizeWebhookEvent(name: string): string | null {
  const hit = memo.get(name);
  if (hit !== undefined) return hit;
  let out: string | null = null;
  if (typeof name === "string" && name.length > 0 && name.length <= 64) {
    const trimmed = name.trim();
    if (VALID.test(trimmed)) {
      const upper = trimmed.replace(/[._ -]+/g, "_").toUpperCase();
      out = ALIASES[upper] ?? upper;
    }
  }
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(name, out);
  return out;
}

/**
 * The dotted name the server sends for a kind, or null when unknown.
 *
 * @example
 * ```ts
 * import { dottedWebhookEvent } from "@gw/gateway/webhooks";
 * dottedWebhookEvent("group_participants_update"); // "group-participants.update"
 * ```
 */
export function dottedWebhookEvent(name: string): WebhookEventName | null {
  const kind = normalizeWebhookEvent(name);
  return kind === null ? null : (WEBHOOK_EVENTS[kind] as WebhookEventName | undefined) ?? null;
}
