/**
 * `GatewaySimulator`: the simulated gateway server as a request handler, with the controls tests use.
 *
 * @module
 */

import { phoneMatchKey } from "../../address/phone.ts";
import { SimulatorCore } from "./core.ts";
import { createJid, isGroupJid, newInboundMessageId } from "./jid.ts";
import { ALL_ROUTES, handleRequest, RouteTable } from "./router.ts";
import { newInstanceState } from "./state.ts";
import type {
  EmittedEventRecord,
  FailNextOptions,
  RequestLogEntry,
  RouteSelector,
  SentMessageRecord,
  SimulatedConnectionState,
  SimulateInboundOptions,
  SimulateScanOptions,
  SimulateStatusOptions,
  SimulatorOptions,
  WebhookDeliveryRecord,
} from "./types.ts";

/** A summary of one simulated instance. */
export interface SimulatedInstanceInfo {
  /** Instance name. */
  name: string;
  /** Instance id (uuid). */
  id: string;
  /** The instance's own api key (`hash`). */
  token: string;
  /** Connection state. */
  state: SimulatedConnectionState;
  /** The account's JID once connected, else null. */
  ownerJid: string | null;
  /** `WHATSAPP-BAILEYS`, `WHATSAPP-BUSINESS` or `EVOLUTION`. */
  integration: string;
}

/** Options of {@link GatewaySimulator.addInstance}. */
export interface AddInstanceOptions {
  /** The instance's api key. Default: a new upper-case uuid. */
  token?: string;
  /** Integration. Default `"WHATSAPP-BAILEYS"`. */
  integration?: string;
  /** Start `open` (as if connected and scanned). Default false (`close`). */
  open?: boolean;
  /** Account number used when `open`. */
  number?: string;
}

const ROUTES = new RouteTable(ALL_ROUTES);

/**
 * The simulated gateway server (Evolution API v2.3.x as the contract describes it): call
 * {@link GatewaySimulator.handle} with a `Request`, get the `Response` the real server would give.
 * State (instances, messages, chats, groups, webhook settings ...) lives in memory.
 *
 * @example Use it as an injected fetch
 * ```ts
 * import { GatewaySimulator } from "@gw/gateway/testing";
 * const sim = new GatewaySimulator({ apiKey: "test-key" });
 * const res = await sim.fetch("http://gateway.test/instance/create", {
 *   method: "POST",
 *   headers: { apikey: "test-key", "content-type": "application/json" },
 *   body: JSON.stringify({ instanceName: "sales", integration: "WHATSAPP-BAILEYS" }),
 * });
 * console.log(res.status); // 201
 * await sim.close();
 * ```
 */
export class GatewaySimulator {
  /** The global api key this server accepts. */
  readonly apiKey: string;
  readonly #core: SimulatorCore;

  /** Create a simulator with no instances. */
  constructor(options: SimulatorOptions = {}) {
    this.#core = new SimulatorCore(options);
    this.apiKey = this.#core.apiKey;
  }

  /**
   * Answer one request like the reference server; rejects as `fetch` would for a scripted
   * {@link GatewaySimulator.dropConnection} (`TypeError`) or an abort during a scripted delay.
   */
  handle(request: Request): Promise<Response> {
    return handleRequest(this.#core, ROUTES, request);
  }

  /** A `fetch`-compatible function bound to this simulator, for injecting into a client. */
  readonly fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
    this.handle(new Request(input, init));

  /** `SERVER_URL` used in webhook envelopes (`server_url`), or undefined. */
  get serverUrl(): string | undefined {
    return this.#core.serverUrl;
  }

  /** Set `SERVER_URL` (the mock server sets its own URL when none was given). */
  set serverUrl(url: string | undefined) {
    this.#core.serverUrl = url;
  }

  // --- logs

  /** Every request received, oldest first. */
  get requests(): readonly RequestLogEntry[] {
    return this.#core.requests;
  }

  /** Every message accepted by a send route, oldest first. */
  get sentMessages(): readonly SentMessageRecord[] {
    return this.#core.sentMessages;
  }

  /** Every outbound webhook delivery started, oldest first (updated while attempts run). */
  get deliveries(): readonly WebhookDeliveryRecord[] {
    return this.#core.dispatcher.deliveries;
  }

  /** Every event emitted, whether or not a webhook took it. */
  get events(): readonly EmittedEventRecord[] {
    return this.#core.emitted;
  }

  // --- instances

  /** A summary of an instance, or undefined when it does not exist. */
  instance(name: string): SimulatedInstanceInfo | undefined {
    const i = this.#core.instances.get(name);
    if (!i) return undefined;
    return {
      name: i.name,
      id: i.id,
      token: i.token,
      state: i.state,
      ownerJid: i.ownerJid,
      integration: i.integration,
    };
  }

  /**
   * Create an instance directly (no request or event), optionally open. It has no settings row:
   * `/settings/find` answers `null` until `/settings/set`.
   */
  addInstance(name: string, options: AddInstanceOptions = {}): SimulatedInstanceInfo {
    const core = this.#core;
    if (core.instances.has(name)) throw new Error(`Cannot add instance: name "${name}" is already in use`);
    const instance = newInstanceState({
      id: crypto.randomUUID(),
      name,
      token: options.token ?? crypto.randomUUID().toUpperCase(),
      integration: options.integration ?? "WHATSAPP-BAILEYS",
      number: options.number ?? null,
      businessId: null,
      now: core.isoNow(),
    });
    core.instances.set(name, instance);
    if (options.open) {
      instance.everConnected = true;
      instance.state = "open";
      instance.ownerJid = createJid(options.number ?? `55119${String(core.instances.size).padStart(8, "0")}`);
      instance.profileName = "Mock User";
    }
    return this.instance(name)!;
  }

  /**
   * The QR code of a connecting instance was scanned: the state becomes `open` and
   * `connection.update` is emitted. A closed instance is connected first (`connecting`, a QR code,
   * `connection.update` and `qrcode.updated`); an open one is left alone.
   *
   * @example
   * ```ts
   * import { GatewaySimulator } from "@gw/gateway/testing";
   * const sim = new GatewaySimulator();
   * sim.addInstance("sales");
   * sim.simulateScan("sales", { number: "5511988887777", profileName: "Sales" });
   * console.log(sim.instance("sales")?.ownerJid); // "5511988887777@s.whatsapp.net"
   * await sim.close();
   * ```
   */
  simulateScan(name: string, options: SimulateScanOptions = {}): void {
    const instance = this.#core.mustGet(name, "simulate scan");
    if (instance.state === "open") return;
    if (instance.state === "close") this.#core.startConnecting(instance, null);
    this.#core.openInstance(instance, options);
  }

  /**
   * A message arrives from a contact: stored (so `findMessages`/`findChats`/`findContacts` see it) and
   * emitted as `messages.upsert` (`fromMe: false`, `status: "DELIVERY_ACK"`). With `fromLid`, the chat
   * is addressed by the LID and `key.remoteJidAlt` carries the phone JID. Returns the messageRaw.
   *
   * @example
   * ```ts
   * import { GatewaySimulator } from "@gw/gateway/testing";
   * const sim = new GatewaySimulator();
   * sim.addInstance("sales", { open: true });
   * const msg = sim.simulateInboundMessage("sales", { from: "5511999999999", text: "Hi" });
   * console.log((msg.key as { fromMe: boolean }).fromMe); // false
   * await sim.close();
   * ```
   */
  simulateInboundMessage(name: string, options: SimulateInboundOptions): Record<string, unknown> {
    const core = this.#core;
    const instance = core.mustGet(name, "simulate inbound message");
    if (instance.state !== "open") {
      throw new Error(`Cannot simulate inbound message: instance "${name}" is not open`);
    }
    const jid = createJid(options.from);
    const id = options.id ?? newInboundMessageId();
    const key = inboundKey(options, jid, id);
    const pushName = options.pushName ?? "Contact";
    const timestamp = options.timestamp ?? core.seconds();
    const raw: Record<string, unknown> = {
      key,
      pushName,
      status: "DELIVERY_ACK",
      message: { conversation: options.text },
      contextInfo: null,
      messageType: "conversation",
      messageTimestamp: timestamp,
      instanceId: instance.id,
      source: "android",
    };
    core.storeMessage(instance, {
      id: crypto.randomUUID(),
      key: { ...key },
      pushName,
      messageType: "conversation",
      message: { conversation: options.text },
      contextInfo: null,
      messageTimestamp: timestamp,
      instanceId: instance.id,
      source: "android",
      status: "DELIVERY_ACK",
      participant: (key.participant as string | undefined) ?? null,
    }, pushName);
    if (options.fromLid && !isGroupJid(jid)) core.touchContact(instance, jid, pushName);
    core.emit(instance, "messages.upsert", raw);
    return raw;
  }

  /** A message changed status: stored as a `MessageUpdate` row and emitted as `messages.update`. */
  simulateStatusUpdate(name: string, options: SimulateStatusOptions): void {
    const core = this.#core;
    const instance = core.mustGet(name, "simulate status update");
    const stored = core.findMessage(instance, options.messageId);
    if (!stored) {
      throw new Error(
        `Cannot simulate status update: message "${options.messageId}" is not stored for "${name}"`,
      );
    }
    stored.status = options.status;
    const row = {
      id: crypto.randomUUID(),
      keyId: options.messageId,
      remoteJid: String(stored.key.remoteJid),
      fromMe: stored.key.fromMe === true,
      participant: (stored.key.participant as string | undefined) ?? null,
      pollUpdates: null,
      status: options.status,
      messageId: stored.id,
      instanceId: instance.id,
    };
    instance.updates.push(row);
    core.emit(instance, "messages.update", {
      keyId: row.keyId,
      remoteJid: row.remoteJid,
      fromMe: row.fromMe,
      participant: stored.key.participant,
      status: row.status,
      instanceId: instance.id,
      messageId: stored.id,
    });
  }

  /**
   * Mark numbers (or JIDs) as not on WhatsApp: sends to them fail with 400
   * `[{jid, exists: false, number}]` and `whatsappNumbers` reports `exists: false`.
   */
  setNotOnWhatsApp(...numbers: string[]): void {
    for (const n of numbers) this.#core.notOnWhatsApp.add(createJid(n));
  }

  /**
   * Register a WhatsApp account under exactly this number (its JID). Once any account is registered,
   * `whatsappNumbers` and sends see only registered accounts, and a number reaches an account registered
   * under one of its variants (Brazil's 9th digit, Mexico's `1`, Argentina's `9`), as on the server:
   * `{ jid: <the account's JID>, exists: true, number: <as asked> }`.
   */
  registerAccount(number: string): void {
    const jid = rawJid(number);
    this.#core.accounts.set(phoneMatchKey(jid), { jid });
  }

  /** Undo {@link GatewaySimulator.setNotOnWhatsApp} for these numbers. */
  setOnWhatsApp(...numbers: string[]): void {
    for (const n of numbers) this.#core.notOnWhatsApp.delete(createJid(n));
  }

  /**
   * Whether instances can reach WhatsApp (default true); if not, `connect` and `restart` leave them
   * `connecting` with no QR code and answer `{count: 0}`.
   */
  setWhatsAppReachable(reachable: boolean): void {
    this.#core.whatsAppReachable = reachable;
  }

  /**
   * WhatsApp closed an instance's connection with a `statusReason` code (401 logged out, 403 banned, 428
   * closed, ...). For 401, 402, 403 and 406 the instance ends `close` with `disconnectionReasonCode` set and
   * `status.instance` plus `connection.update` close are emitted; for other codes the server reconnects
   * silently (state `connecting`).
   */
  simulateDisconnect(name: string, statusReason: number): void {
    this.#core.disconnect(this.#core.mustGet(name, "simulate disconnect"), statusReason);
  }

  /** QR code limit hit: `qrcode.updated` with the limit text, `connection.update` `refused` 428, `close`. */
  simulateQrLimit(name: string): void {
    this.#core.qrLimit(this.#core.mustGet(name, "simulate QR limit"));
  }

  /** Make the live proxy test of `/proxy/set` and `create` pass (default) or fail with 400 "Invalid proxy". */
  setProxyTestResult(passes: boolean): void {
    this.#core.proxyTestPasses = passes;
  }

  // --- fault injection

  /** Answer the next matching request(s) with a scripted status and body, before any routing or guard. */
  failNext(options: FailNextOptions): void {
    this.#core.faults.failNext(options);
  }

  /**
   * Hold matching answers for `ms` (until `clearFaults`/`reset`, or for `times` matches); an abort of
   * the request's signal ends the wait with its reason.
   */
  delay(route: RouteSelector, ms: number, options: { times?: number } = {}): void {
    this.#core.faults.delay(route, ms, options.times);
  }

  /**
   * Close the connection of the next matching request(s) (default once) before any answer: the
   * in-process handler rejects with a `TypeError`, `MockGatewayServer` resets the TCP connection.
   */
  dropConnection(route: RouteSelector, options: { times?: number } = {}): void {
    this.#core.faults.dropConnection(route, options.times);
  }

  /**
   * Drop `share` (0..1) of the webhooks of `event` (dotted; default all) as if the server gave up: listed
   * in `droppedWebhooks`, spread evenly and deterministically (`0.3` drops exactly 30 of every 100).
   */
  dropWebhooks(options: { event?: string; instance?: string; share: number }): void {
    this.#core.faults.dropWebhooks(options);
  }

  /** Every webhook dropped by {@link GatewaySimulator.dropWebhooks}, oldest first. */
  get droppedWebhooks(): readonly EmittedEventRecord[] {
    return this.#core.droppedWebhooks;
  }

  /** Remove every scripted failure, delay and dropped connection. */
  clearFaults(): void {
    this.#core.faults.clear();
  }

  // --- webhooks and lifecycle

  /** Resolves when no webhook delivery is pending, retries included (their waits too, by default). */
  webhooksIdle(): Promise<void> {
    return this.#core.dispatcher.idle();
  }

  /** Deliver every pending webhook now, cutting retry waits short; resolves when none is pending. */
  flushWebhooks(): Promise<void> {
    return this.#core.dispatcher.flush();
  }

  /** Forget instances, logs, faults and unreachable numbers; abort pending deliveries and delays. */
  reset(): void {
    this.#core.reset();
  }

  /** Stop timers, abort pending deliveries and delays, and wait until nothing is left running. */
  async close(): Promise<void> {
    this.#core.shutdown();
    await this.#core.dispatcher.idle();
  }

  /** Same as {@link GatewaySimulator.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

// The JID of an account registered under exactly these digits (no server-side rewriting).
function rawJid(number: string): string {
  return number.includes("@") ? number : `${number.replace(/\D/g, "")}@s.whatsapp.net`;
}

/**
 * The key of an inbound message from `jid`: with `fromLid` the chat is the LID and the phone JID goes where
 * `lidShape` says (`remoteJidAlt`, or `senderPn`); likewise a group participant's with `participantLid`.
 */
function inboundKey(options: SimulateInboundOptions, jid: string, id: string): Record<string, unknown> {
  const key: Record<string, unknown> = { remoteJid: jid, fromMe: false, id };
  const shape = options.lidShape ?? "remoteJidAlt";
  if (options.fromLid) {
    key.remoteJid = options.fromLid.includes("@") ? options.fromLid : `${options.fromLid}@lid`;
    if (shape === "remoteJidAlt") {
      key.remoteJidAlt = jid;
      key.addressingMode = "lid";
    } else if (shape === "senderPn") key.senderPn = jid;
  }
  if (isGroupJid(jid) && options.participant) {
    const participant = createJid(options.participant);
    key.participant = participant;
    if (options.participantLid) {
      key.participant = options.participantLid.includes("@")
        ? options.participantLid
        : `${options.participantLid}@lid`;
      if (shape === "remoteJidAlt") {
        key.participantAlt = participant;
        key.addressingMode = "lid";
      } else if (shape === "senderPn") key.senderPn = participant;
    }
  }
  return key;
}
