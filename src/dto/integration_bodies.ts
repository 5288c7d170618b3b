/**
 * The bodies of `/chatwoot/set` and of the event sinks' `/<sink>/set`, from the server's schemas.
 *
 * @module
 */

import type { BodySpec, FieldSpec } from "./body_spec.ts";
import { readStringList } from "./chatbot_bodies.ts";
import { readWebhookEvents, WEBHOOK_CONFIG_EVENTS } from "./webhook_config.ts";

/** An event sink configured by `{ <sink>: { enabled, events } }`. */
export type EventSink = "websocket" | "rabbitmq" | "nats" | "sqs" | "kafka";

const EVENTS: FieldSpec = {
  type: "array",
  default: [],
  read: readWebhookEvents,
  server: { type: "array", minItems: 0, items: { type: "string", enum: Object.keys(WEBHOOK_CONFIG_EVENTS) } },
};

const SINK_FIELDS: Record<string, FieldSpec> = {
  enabled: { type: "boolean", required: true, strictBoolean: true, default: true },
  events: EVENTS,
};

/**
 * The body of `/<sink>/set` for the five sinks the server configures alike: `enabled` (default true) and
 * `events` (UPPER_SNAKE or dotted names; `[]`, the default, sends none), wrapped in the sink's name.
 */
export function eventSinkBody(sink: EventSink): BodySpec {
  return {
    what: `${sink} configuration`,
    wrap: sink,
    fields: SINK_FIELDS,
  };
}

const PUSHER_FIELDS: Record<string, FieldSpec> = {
  enabled: { type: "boolean", required: true, default: true },
  appId: { type: "string", required: true },
  key: { type: "string", required: true },
  secret: { type: "string", required: true },
  cluster: { type: "string", required: true },
  useTLS: { type: "boolean", required: true, default: true },
  events: EVENTS,
};

/** The body of `/pusher/set`: the Pusher app's credentials, wrapped in `pusher`. */
export const PUSHER_BODY: BodySpec = {
  what: "pusher configuration",
  wrap: "pusher",
  requiredNotEmpty: true,
  fields: PUSHER_FIELDS,
};

const strict = (required = false): FieldSpec => ({ type: "boolean", strictBoolean: true, required });

const CHATWOOT_FIELDS: Record<string, FieldSpec> = {
  enabled: { ...strict(true), default: true },
  accountId: { type: "string", required: true },
  token: { type: "string", required: true },
  url: { type: "string", required: true },
  signMsg: { ...strict(true), default: false },
  signDelimiter: { type: "string", server: { type: ["string", "null"] } },
  nameInbox: { type: "string", server: { type: ["string", "null"] } },
  reopenConversation: { ...strict(true), default: false },
  conversationPending: { ...strict(true), default: false },
  autoCreate: strict(),
  importContacts: strict(),
  mergeBrazilContacts: strict(),
  importMessages: strict(),
  daysLimitImportMessages: { type: "number", min: 0 },
  ignoreJids: { type: "array", read: readStringList, server: { type: "array", items: { type: "string" } } },
  // Read by the server's controller, not listed by its schema.
  number: { type: "string", server: false },
  organization: { type: "string", server: false },
  logo: { type: "string", server: false },
};

/**
 * The body of `/chatwoot/set`: the Chatwoot account, token and URL; `enabled` defaults to true, `signMsg`,
 * `reopenConversation` and `conversationPending` to false.
 */
export const CHATWOOT_BODY: BodySpec = {
  what: "Chatwoot configuration",
  requiredNotEmpty: true,
  fields: CHATWOOT_FIELDS,
};
