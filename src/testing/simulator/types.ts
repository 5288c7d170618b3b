/**
 * Public option and record types of the simulated gateway server.
 *
 * @module
 */

/** Connection state of a simulated instance, as `connectionState` reports it. */
export type SimulatedConnectionState = "open" | "connecting" | "close";

/** How the simulated server retries outbound webhook deliveries (the server's `WEBHOOK_RETRY_*` settings). */
export interface WebhookRetryOptions {
  /** Attempts in total, the first one included. Default 10. */
  maxAttempts?: number;
  /** Wait before the second attempt, in ms. Default 5000. */
  initialDelayMs?: number;
  /** Longest wait between attempts, in ms. Default 300000. */
  maxDelayMs?: number;
  /** Random spread of each wait, as a fraction (0.2 = ±20 %). Default 0.2. */
  jitterFactor?: number;
  /** Double the wait after each attempt (true) or keep it fixed (false). Default true. */
  exponential?: boolean;
  /** Statuses that are never retried. Default 400, 401, 403, 404, 422. */
  nonRetryableStatuses?: number[];
  /** Per-attempt timeout, in ms. Default 30000. */
  timeoutMs?: number;
}

/** Options of {@link GatewaySimulator} (and of `MockGatewayServer.start`).
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator({ apiKey: "test-key", autoConnectMs: 0, sleep: () => Promise.resolve() });
 * await sim.close();
 * ```
 */
export interface SimulatorOptions {
  /** The global api key (`AUTHENTICATION_API_KEY`). Default `"BQYHJGJHJ"`, the server's default. */
  apiKey?: string;
  /** `SERVER_URL`, put in webhook envelopes as `server_url`. `MockGatewayServer` defaults it to its own URL. */
  serverUrl?: string;
  /** Put the instance token in each webhook's `apikey` field (`AUTHENTICATION_EXPOSE_IN_FETCH_INSTANCES`). Default true. */
  exposeApiKeyInWebhooks?: boolean;
  /** Version reported by `GET /`. Default `"2.3.6"`. */
  version?: string;
  /** Answer every route except `GET /` with the 2.4 license gate's 503. Default false. */
  licenseRequired?: boolean;
  /**
   * Open an instance this many ms after `connect`, as if scanned (`0`: at once, no timer). Unset: stay
   * `connecting` until `simulateScan(name)`.
   */
  autoConnectMs?: number;
  /** Retry policy of outbound webhooks. */
  webhookRetry?: WebhookRetryOptions;
  /** The `fetch` used to deliver webhooks. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Wait between webhook retries; the default timer is cut short by `flushWebhooks`, `reset`, `close`. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Extra headers per webhook delivery from the exact body sent (an HMAC signature, say). */
  sign?: (rawBody: string) => Promise<HeadersInit>;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Random source in [0, 1) for retry jitter. Default `Math.random`. */
  random?: () => number;
}

/** One request the simulated server received, as `requests` lists it.
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * await sim.fetch("http://gateway.test/?x=1");
 * const [entry] = sim.requests;
 * console.log(entry.method, entry.path, entry.query); // GET / { x: "1" }
 * await sim.close();
 * ```
 */
export interface RequestLogEntry {
  /** HTTP method, upper case. */
  method: string;
  /** Path without the query string, as sent (not decoded). */
  path: string;
  /** Query parameters (the last value wins when one is repeated). */
  query: Record<string, string>;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** Parsed body: JSON value, form fields, the raw text when it did not parse, or undefined. */
  body: unknown;
  /** The route template matched, such as `"POST /message/sendText"`, or undefined for an unknown route. */
  route?: string;
  /** The decoded instance name taken from the path, when the route has one. */
  instance?: string;
}

/** One message the simulated server accepted on a `/message/*` route (or a group invite).
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator({ apiKey: "k" });
 * sim.addInstance("sales", { open: true });
 * await sim.fetch("http://gateway.test/message/sendText/sales", {
 *   method: "POST",
 *   headers: { apikey: "k", "content-type": "application/json" },
 *   body: JSON.stringify({ number: "5511999999999", text: "Hi" }),
 * });
 * console.log(sim.sentMessages[0].text); // "Hi"
 * await sim.close();
 * ```
 */
export interface SentMessageRecord {
  /** Instance name. */
  instance: string;
  /** The send operation, such as `"sendText"` or `"sendMedia"`. */
  operation: string;
  /** The `number` the request gave (for reactions, the key's `remoteJid`). */
  number: string;
  /** The normalized JID the message went to. */
  remoteJid: string;
  /** The text of the message, when it has one (text, caption, poll name, ...). */
  text?: string;
  /** The request body. */
  body: Record<string, unknown>;
  /** The messageRaw the server answered with. */
  message: Record<string, unknown>;
}

/** The state of one outbound webhook delivery. */
export type DeliveryState = "pending" | "delivered" | "failed";

/** One outbound webhook delivery (all its attempts), as `deliveries` lists it.
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * await sim.flushWebhooks();
 * for (const d of sim.deliveries) console.log(d.event, d.url, d.status, d.attempts, d.state);
 * await sim.close();
 * ```
 */
export interface WebhookDeliveryRecord {
  /** Dotted event name, such as `"send.message"`. */
  event: string;
  /** Instance name. */
  instance: string;
  /** URL posted to (with the byEvents suffix when set). */
  url: string;
  /** Last HTTP status received, or null when no attempt got an answer. */
  status: number | null;
  /** Attempts made so far. */
  attempts: number;
  /** `pending` while attempts remain, then `delivered` or `failed`. */
  state: DeliveryState;
  /** Message of the last network error or timeout, if any. */
  error?: string;
  /** The envelope sent. */
  body: Record<string, unknown>;
  /** Headers sent (after `jwt_key` and `sign` were applied). */
  headers: Record<string, string>;
  /** The waits between attempts, in ms. */
  delays: number[];
}

/** An event the simulated server emitted, whether or not a webhook was configured for it.
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * sim.addInstance("sales");
 * sim.simulateScan("sales");
 * console.log(sim.events.map((e) => e.event)); // ["connection.update", "qrcode.updated", "connection.update"]
 * await sim.close();
 * ```
 */
export interface EmittedEventRecord {
  /** Dotted event name. */
  event: string;
  /** Instance name. */
  instance: string;
  /** The `data` field of the envelope. */
  data: unknown;
}

/**
 * A route as the fault-injection helpers take it: `"POST /message/sendText"` (one method) or
 * `"/message/sendText"` (any method). The instance segment is left out; a trailing
 * `/{instance}` or `/:instanceName` is ignored. Matching ignores case.
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * sim.failNext({ route: "POST /message/sendText", status: 503 });
 * sim.delay("/instance/connectionState", 100);
 * await sim.close();
 * ```
 */
export type RouteSelector = string;

/** A scripted failure for `failNext`.
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * sim.failNext({ route: "/message/sendText", status: 429, times: 2, retryAfter: 1 });
 * await sim.close();
 * ```
 */
export interface FailNextOptions {
  /** Route to fail; every route when omitted. */
  route?: RouteSelector;
  /** Only requests for this instance name. */
  instance?: string;
  /** HTTP status to answer. */
  status: number;
  /** How many matching requests fail. Default 1. */
  times?: number;
  /** `Retry-After` header value (seconds, or an HTTP date string). */
  retryAfter?: number | string;
  /** Body to answer: a string is sent as is, anything else as JSON. Default: the server's error envelope. */
  body?: unknown;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** Details for `simulateScan`. */
export interface SimulateScanOptions {
  /** Phone number of the account that "scanned" the QR code. Default: a fresh `55119...` number. */
  number?: string;
  /** Profile name of that account. Default `"Mock User"`. */
  profileName?: string;
  /** Profile picture URL. Default null. */
  profilePictureUrl?: string | null;
}

/** An inbound message for `simulateInboundMessage`. */
export interface SimulateInboundOptions {
  /** Sender: a phone number or a JID (`...@s.whatsapp.net`, `...@g.us`). */
  from: string;
  /** Text of the message. */
  text: string;
  /** Sender's display name. Default `"Contact"`. */
  pushName?: string;
  /** Address the chat by this LID (`...@lid`), with the phone JID in `key.remoteJidAlt`. */
  fromLid?: string;
  /**
   * How a `fromLid` (or `participantLid`) message names the phone: `remoteJidAlt` (2.3.6, Baileys 7: the
   * `...Alt` fields and `addressingMode: "lid"`; the default), `senderPn` (2.3.0 to 2.3.5:
   * `key.senderPn`), or `lidOnly` (no phone at all).
   */
  lidShape?: "remoteJidAlt" | "senderPn" | "lidOnly";
  /** In a group, address the participant by this LID, with the phone JID as `lidShape` says. */
  participantLid?: string;
  /** In a group (`from` is the group), the participant who wrote. */
  participant?: string;
  /** Message id. Default: a fresh upper-case hex id. */
  id?: string;
  /** Unix seconds. Default: now. */
  timestamp?: number;
}

/** A delivery status change for `simulateStatusUpdate`.
 *
 * @example
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator();
 * sim.addInstance("sales", { open: true });
 * const msg = sim.simulateInboundMessage("sales", { from: "5511999999999", text: "Hi" });
 * sim.simulateStatusUpdate("sales", { messageId: (msg.key as { id: string }).id, status: "READ" });
 * await sim.close();
 * ```
 */
export interface SimulateStatusOptions {
  /** `key.id` of the message. */
  messageId: string;
  /** New status. */
  status: "SERVER_ACK" | "DELIVERY_ACK" | "READ" | "PLAYED" | "ERROR" | "DELETED";
}
