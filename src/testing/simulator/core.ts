/**
 * The simulator's shared state and behaviour: instance lifecycle, events, message storage, socket checks.
 *
 * @module
 */

import { type HttpError, internalString, unauthorized } from "./errors.ts";
import { eventConfigName, eventKebab } from "./events.ts";
import { FaultInjector } from "./faults.ts";
import { phoneMatchKey } from "../../address/phone.ts";
import { createJid, isGroupJid, newPairingCode, newQrCode, QR_PNG_BASE64 } from "./jid.ts";
import { WebhookDispatcher } from "./outbound_webhooks.ts";
import type { ChatRow, ContactRow, InstanceState, StoredMessage } from "./state.ts";
import type {
  EmittedEventRecord,
  RequestLogEntry,
  SentMessageRecord,
  SimulateScanOptions,
  SimulatorOptions,
} from "./types.ts";

/** The default global key of the reference server. */
export const DEFAULT_API_KEY = "BQYHJGJHJ";

/** State and shared behaviour of one simulated server. */
export class SimulatorCore {
  readonly options: SimulatorOptions;
  readonly apiKey: string;
  serverUrl: string | undefined;
  readonly instances: Map<string, InstanceState> = new Map();
  readonly notOnWhatsApp: Set<string> = new Set();
  /** Registered accounts by phone match key (all number variants): when any is, only they exist. */
  readonly accounts: Map<string, { jid: string; lid?: string }> = new Map();
  /** Webhooks dropped by `dropWebhooks`, oldest first. */
  readonly droppedWebhooks: EmittedEventRecord[] = [];
  readonly requests: RequestLogEntry[] = [];
  readonly sentMessages: SentMessageRecord[] = [];
  readonly emitted: EmittedEventRecord[] = [];
  readonly faults: FaultInjector = new FaultInjector();
  readonly dispatcher: WebhookDispatcher;
  proxyTestPasses = true;
  /** False: sockets start but never reach WhatsApp (no QR code; `connect` answers `{count: 0}`). */
  whatsAppReachable = true;
  /** Id of this server, reported by the license gate. */
  readonly serverId: string = crypto.randomUUID();
  #abort = new AbortController();
  #ownerCounter = 0;

  constructor(options: SimulatorOptions) {
    this.options = options;
    this.apiKey = options.apiKey ?? DEFAULT_API_KEY;
    this.serverUrl = options.serverUrl;
    this.dispatcher = new WebhookDispatcher({
      fetch: options.fetch,
      sleep: options.sleep,
      sign: options.sign,
      retry: options.webhookRetry,
      now: () => this.now(),
      random: options.random ?? Math.random,
    });
  }

  /** Aborted by `reset()` and `close()`: ends delays in flight. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  now(): number {
    return (this.options.now ?? Date.now)();
  }

  isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** Forget everything: instances, logs, faults, pending deliveries and timers. */
  reset(): void {
    for (const instance of this.instances.values()) instance.cancelAutoConnect?.();
    this.instances.clear();
    this.notOnWhatsApp.clear();
    this.accounts.clear();
    this.droppedWebhooks.length = 0;
    this.requests.length = 0;
    this.sentMessages.length = 0;
    this.emitted.length = 0;
    this.faults.clear();
    this.dispatcher.cancel();
    this.dispatcher.clearLog();
    this.proxyTestPasses = true;
    this.whatsAppReachable = true;
    this.#abort.abort(new DOMException("Simulator was reset", "AbortError"));
    this.#abort = new AbortController();
  }

  /** Stop timers and pending work; used by `close()`. */
  shutdown(): void {
    for (const instance of this.instances.values()) instance.cancelAutoConnect?.();
    this.dispatcher.cancel();
    this.#abort.abort(new DOMException("Simulator was closed", "AbortError"));
  }

  // --- auth

  /** True when `key` is the global key. */
  isGlobalKey(key: string | null): boolean {
    return key !== null && key === this.apiKey;
  }

  /** 401 unless `key` is the global key. */
  requireGlobalKey(key: string | null): void {
    if (!this.isGlobalKey(key)) throw unauthorized();
  }

  // --- instance lifecycle

  /** The instance, or an Error naming it (for the simulate* helpers, not for HTTP). */
  mustGet(name: string, action: string): InstanceState {
    const instance = this.instances.get(name);
    if (!instance) throw new Error(`Cannot ${action}: instance "${name}" does not exist`);
    return instance;
  }

  /** Start the socket: state `connecting`, a new QR code, `connection.update` and `qrcode.updated`. */
  startConnecting(instance: InstanceState, number?: string | null): void {
    instance.state = "connecting";
    instance.everConnected = true;
    instance.updatedAt = this.isoNow();
    if (!this.whatsAppReachable) {
      // The socket waits for WhatsApp forever: no QR code, `connect` answers `{count: 0}`.
      instance.qr = null;
      this.emit(instance, "connection.update", {
        instance: instance.name,
        state: "connecting",
        statusReason: 200,
      });
      return;
    }
    instance.qr = {
      pairingCode: number ? newPairingCode() : null,
      code: newQrCode(),
      base64: QR_PNG_BASE64,
      count: (instance.qr?.count ?? 0) + 1,
    };
    this.emit(instance, "connection.update", {
      instance: instance.name,
      state: "connecting",
      statusReason: 200,
    });
    this.emit(instance, "qrcode.updated", {
      qrcode: {
        instance: instance.name,
        pairingCode: instance.qr.pairingCode,
        code: instance.qr.code,
        base64: instance.qr.base64,
      },
    });
    this.scheduleAutoConnect(instance);
  }

  /** The QR object `connect` answers with. */
  qrBody(instance: InstanceState): Record<string, unknown> {
    const qr = instance.qr;
    if (!qr) return { count: 0 };
    return { pairingCode: qr.pairingCode, code: qr.code, base64: qr.base64, count: qr.count };
  }

  scheduleAutoConnect(instance: InstanceState): void {
    const ms = this.options.autoConnectMs;
    if (ms === undefined) return;
    instance.cancelAutoConnect?.();
    if (ms <= 0) {
      // No timer: open right after the current answer is built.
      queueMicrotask(() => {
        if (this.instances.get(instance.name) === instance && instance.state === "connecting") {
          this.openInstance(instance, {});
        }
      });
      return;
    }
    const timer = setTimeout(() => {
      instance.cancelAutoConnect = undefined;
      if (this.instances.get(instance.name) === instance && instance.state === "connecting") {
        this.openInstance(instance, {});
      }
    }, ms);
    instance.cancelAutoConnect = () => {
      clearTimeout(timer);
      instance.cancelAutoConnect = undefined;
    };
  }

  /** The QR code was scanned: state `open`, owner set, `connection.update` sent. */
  openInstance(instance: InstanceState, options: SimulateScanOptions): void {
    instance.cancelAutoConnect?.();
    const number = options.number ?? instance.ownerJid?.split("@")[0] ?? this.#nextOwnerNumber();
    instance.ownerJid = createJid(number);
    instance.profileName = options.profileName ?? instance.profileName ?? "Mock User";
    if (options.profilePictureUrl !== undefined) instance.profilePicUrl = options.profilePictureUrl;
    instance.state = "open";
    instance.everConnected = true;
    instance.qr = null;
    instance.disconnectionReasonCode = null;
    instance.disconnectionObject = null;
    instance.disconnectionAt = null;
    instance.updatedAt = this.isoNow();
    this.emit(instance, "connection.update", {
      instance: instance.name,
      wuid: instance.ownerJid,
      profileName: instance.profileName,
      profilePictureUrl: instance.profilePicUrl,
      state: "open",
      statusReason: 200,
    });
  }

  #nextOwnerNumber(): string {
    this.#ownerCounter++;
    return `5511990${String(this.#ownerCounter).padStart(6, "0")}`;
  }

  /** Logout: `logout.instance`, then `connection.update` close 401; state `close`. */
  logoutInstance(instance: InstanceState): void {
    instance.cancelAutoConnect?.();
    this.emit(instance, "logout.instance", null);
    instance.state = "close";
    instance.qr = null;
    instance.disconnectionReasonCode = 401;
    instance.disconnectionAt = this.isoNow();
    instance.disconnectionObject = JSON.stringify({
      error: {
        isBoom: true,
        isServer: false,
        output: { statusCode: 401, payload: { message: "Connection Failure" } },
      },
      date: instance.disconnectionAt,
    });
    instance.updatedAt = instance.disconnectionAt;
    this.emit(instance, "connection.update", { instance: instance.name, state: "close", statusReason: 401 });
  }

  /**
   * WhatsApp closed the connection with `code`. For the codes the server does not reconnect after (401,
   * 402, 403, 406) the state becomes `close` with the disconnection fields and `status.instance` and
   * `connection.update` close are sent; for the others the server reconnects (`connecting`, no webhook).
   */
  disconnect(instance: InstanceState, code: number): void {
    instance.cancelAutoConnect?.();
    if (![401, 402, 403, 406].includes(code)) {
      instance.state = "connecting";
      instance.updatedAt = this.isoNow();
      return;
    }
    instance.state = "close";
    instance.qr = null;
    instance.disconnectionReasonCode = code;
    instance.disconnectionAt = this.isoNow();
    instance.disconnectionObject = JSON.stringify({
      error: {
        isBoom: true,
        isServer: false,
        output: { statusCode: code, payload: { message: "Connection Failure" } },
      },
      date: instance.disconnectionAt,
    });
    instance.updatedAt = instance.disconnectionAt;
    this.emit(instance, "status.instance", {
      instance: instance.name,
      status: "closed",
      disconnectionAt: instance.disconnectionAt,
      disconnectionReasonCode: code,
      disconnectionObject: instance.disconnectionObject,
    });
    this.emit(instance, "connection.update", { instance: instance.name, state: "close", statusReason: code });
  }

  /** `QRCODE_LIMIT` hit: `qrcode.updated` with the limit text, `connection.update` `refused` 428, `close`. */
  qrLimit(instance: InstanceState): void {
    instance.cancelAutoConnect?.();
    this.emit(instance, "qrcode.updated", {
      message: "QR code limit reached, please login again",
      statusCode: 500,
    });
    this.emit(instance, "connection.update", {
      instance: instance.name,
      state: "refused",
      statusReason: 428,
      wuid: instance.ownerJid,
      profileName: instance.profileName,
      profilePictureUrl: instance.profilePicUrl,
    });
    instance.state = "close";
    instance.qr = null;
    instance.updatedAt = this.isoNow();
  }

  /** Delete: logs out first when needed, sends `instance.delete` and `remove.instance`, then forgets it. */
  deleteInstance(instance: InstanceState): void {
    if (instance.state !== "close") this.logoutInstance(instance);
    this.emit(instance, "instance.delete", { instanceName: instance.name, instanceId: instance.id });
    this.emit(instance, "remove.instance", null);
    instance.cancelAutoConnect?.();
    this.instances.delete(instance.name);
  }

  // --- socket and numbers

  /**
   * The error a Baileys call gives when the socket is not open: a TypeError text when it was never
   * started, Boom "Connection Closed" otherwise (contract §3, §12).
   */
  socketError(instance: InstanceState, method = "onWhatsApp"): HttpError | undefined {
    if (instance.state === "open") return undefined;
    if (!instance.everConnected) {
      return internalString(`Cannot read properties of undefined (reading '${method}')`);
    }
    return internalString("Connection Closed");
  }

  /**
   * The same failure as `error.toString()` gives it, for routes that catch it and rethrow it inside
   * another exception: `"Error: Connection Closed"` or `"TypeError: Cannot read properties ..."`.
   */
  socketErrorText(instance: InstanceState, method = "onWhatsApp"): string | undefined {
    if (instance.state === "open") return undefined;
    if (!instance.everConnected) {
      return `TypeError: Cannot read properties of undefined (reading '${method}')`;
    }
    return "Error: Connection Closed";
  }

  /** Throw the socket error when the instance is not open. */
  requireSocket(instance: InstanceState, method?: string): void {
    const error = this.socketError(instance, method);
    if (error) throw error;
  }

  /** `whatsappNumber` for one number: `{exists, jid, number}`. */
  onWhatsApp(instance: InstanceState, number: string): { exists: boolean; jid: string; number: string } {
    const jid = createJid(number);
    if (isGroupJid(jid)) return { exists: instance.groups.has(jid), jid, number };
    const exists = !this.notOnWhatsApp.has(jid) && !jid.endsWith("@broadcast");
    if (this.accounts.size > 0 && exists && jid.endsWith("@s.whatsapp.net")) {
      // Like the server: the number or one of its BR/MX/AR variants, as the account is registered.
      const account = this.accounts.get(phoneMatchKey(jid));
      return account ? { exists: true, jid: account.jid, number } : { exists: false, jid, number };
    }
    return { exists, jid, number };
  }

  // --- storage

  /** Store a message row and update its chat (and contact, for inbound ones). */
  storeMessage(instance: InstanceState, message: StoredMessage, pushName?: string | null): void {
    instance.messages.push(message);
    const remoteJid = String(message.key.remoteJid);
    const chat = this.touchChat(instance, remoteJid);
    if (!message.key.fromMe) {
      chat.unreadMessages++;
      if (pushName !== undefined && !isGroupJid(remoteJid)) this.touchContact(instance, remoteJid, pushName);
    }
  }

  /** Create or refresh a chat row. */
  touchChat(instance: InstanceState, remoteJid: string): ChatRow {
    const now = this.isoNow();
    let chat = instance.chats.get(remoteJid);
    if (!chat) {
      chat = {
        id: crypto.randomUUID(),
        remoteJid,
        name: null,
        unreadMessages: 0,
        archived: false,
        markedUnread: false,
        labels: [],
        createdAt: now,
        updatedAt: now,
      };
      instance.chats.set(remoteJid, chat);
    }
    chat.updatedAt = now;
    return chat;
  }

  /** Create or refresh a contact row. */
  touchContact(instance: InstanceState, remoteJid: string, pushName: string | null): ContactRow {
    const now = this.isoNow();
    let contact = instance.contacts.get(remoteJid);
    if (!contact) {
      contact = {
        id: crypto.randomUUID(),
        remoteJid,
        pushName,
        profilePicUrl: null,
        createdAt: now,
        updatedAt: now,
      };
      instance.contacts.set(remoteJid, contact);
    } else if (pushName) {
      contact.pushName = pushName;
      contact.updatedAt = now;
    }
    return contact;
  }

  /** Find a stored message by `key.id`. */
  findMessage(instance: InstanceState, keyId: string): StoredMessage | undefined {
    return instance.messages.find((m) => m.key.id === keyId);
  }

  // --- events

  /** The `date_time` quirk: local wall-clock time with a literal `Z`. */
  dateTime(): string {
    const now = this.now();
    return new Date(now - new Date(now).getTimezoneOffset() * 60_000).toISOString();
  }

  /** Record an event and, when the instance's webhook wants it, queue its delivery. */
  emit(instance: InstanceState, event: string, data: unknown): void {
    this.emitted.push({ event, instance: instance.name, data });
    const webhook = instance.webhook;
    if (!webhook || !webhook.enabled || !/^https?:\/\//i.test(webhook.url)) return;
    if (!webhook.events.includes(eventConfigName(event))) return;
    if (this.faults.dropsWebhook(event, instance.name)) {
      this.droppedWebhooks.push({ event, instance: instance.name, data });
      return;
    }
    const body: Record<string, unknown> = {
      event,
      instance: instance.name,
      data,
      destination: webhook.url,
      date_time: this.dateTime(),
    };
    if (instance.ownerJid) body.sender = instance.ownerJid;
    if (this.serverUrl) body.server_url = this.serverUrl;
    body.apikey = this.options.exposeApiKeyInWebhooks === false ? null : instance.token;
    this.dispatcher.dispatch({
      event,
      instance: instance.name,
      url: webhook.webhookByEvents ? `${webhook.url}/${eventKebab(event)}` : webhook.url,
      body,
      customHeaders: webhook.headers,
    });
  }
}
