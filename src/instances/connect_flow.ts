/**
 * The connect flow: pairing as an async iterator of what happens, fed by the webhooks or by polling.
 *
 * @module
 */

import { type DisconnectReason, disconnectReason } from "../health/disconnect_reason.ts";
import { connectAnswerState } from "../server/server_version.ts";
import type { WebhookHandlerFunction, WebhookProcessor } from "../webhooks/processor.ts";
import { nonEmptyString } from "../util/json_shape.ts";
import type { Problems } from "../dto/validate.ts";
import { type OptionKeys, suggestKey } from "../option_keys.ts";

/** Why a connect flow ended without the instance open. */
export type ConnectRefusalReason = "qr_limit" | "stuck_connecting" | "closed" | "timeout";

/** One step of a connect flow. */
export type ConnectFlowEvent =
  | {
    /** A QR code to scan (a new one each time the server rotates it). */
    type: "qr";
    /** The raw QR content, to draw yourself. */
    code: string;
    /** The QR image as a `data:image/png;base64,...` URL, when the server sent one. */
    base64: string | null;
  }
  | {
    /** A pairing code to type on the phone (Linked devices > Link with phone number). */
    type: "pairing";
    /** The code, e.g. `WZYEH1YY`. */
    code: string;
  }
  | {
    /** The phone paired: the instance is open. The flow ends. */
    type: "open";
  }
  | {
    /** The flow gave up. The flow ends. */
    type: "refused";
    /** Why. */
    reason: ConnectRefusalReason;
    /** One sentence for people. */
    message: string;
    /** The server's disconnect reason, when it gave one. */
    disconnect?: DisconnectReason;
    /** The last state seen (`connecting`, `close`), when known. */
    state?: string;
  };

/** Options of `instances().connectFlow(...)`. */
export interface ConnectFlowOptions {
  /** `qr` (scan a QR code) or `pairing` (type a code on the phone; needs `number`). */
  method: "qr" | "pairing";
  /** The phone number to pair (required with `pairing`). */
  number?: string;
  /** Instance to connect (default: the bound one). */
  instance?: string;
  /** Stops the flow: the iterator rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Take QR codes and state changes from this processor's webhooks instead of polling. */
  processor?: WebhookProcessor;
  /** Poll every this many ms when there is no processor (default 2000). */
  pollIntervalMs?: number;
  /**
   * Connecting this long with no new code means stuck (default 75000, above WhatsApp's first 60 s QR
   * period): the instance is restarted once; stuck again, the flow ends with `stuck_connecting`.
   */
  stuckAfterMs?: number;
  /** Give up after this many ms with `timeout` (default 120000). */
  timeoutMs?: number;
  /** Sleep between polls (default: the client's, which tests inject through the service). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The server calls a connect flow makes, bound to one instance. */
export interface ConnectFlowApi {
  /** `GET /instance/connect` (with `number` for a pairing code). */
  connect(number: string | undefined): Promise<unknown>;
  /** `POST /instance/restart`. */
  restart(): Promise<unknown>;
  /** `GET /instance/connectionState`: the state. */
  state(): Promise<string | undefined>;
  /** The last disconnect code of the instance's row, when the server keeps one. */
  disconnectCode(): Promise<number | undefined>;
  /** The instance name (webhooks of other instances are ignored). */
  instance: string;
  /** Clock in epoch ms. */
  now: () => number;
  /** Abortable sleep. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called once with the flow's end (records the instance's health). */
  settled?: (event: ConnectFlowEvent) => Promise<void>;
}

type Signal = { kind: "answer"; body: unknown } | { kind: "event"; event: ConnectFlowEvent };

/** Webhooks for one instance, handed to whoever waits. */
class Mailbox {
  readonly #items: Signal[] = [];
  #wake: AbortController | undefined;

  push(item: Signal): void {
    this.#items.push(item);
    this.#wake?.abort();
  }

  async next(ms: number, sleep: ConnectFlowApi["sleep"], signal?: AbortSignal): Promise<Signal | undefined> {
    if (this.#items.length === 0 && ms > 0) {
      const wake = new AbortController();
      this.#wake = wake;
      try {
        await sleep(ms, signal ? AbortSignal.any([signal, wake.signal]) : wake.signal);
      } catch (error) {
        if (!wake.signal.aborted || signal?.aborted) throw error;
      } finally {
        this.#wake = undefined;
      }
    }
    return this.#items.shift();
  }
}

function fromWebhook(payload: Parameters<WebhookHandlerFunction>[0]): Signal | undefined {
  const data = payload.dataObject;
  if (payload.event === "QRCODE_UPDATED") {
    if (typeof data.message === "string" && data.qrcode === undefined) {
      return {
        kind: "event",
        event: { type: "refused", reason: "qr_limit", message: `the server stopped: ${data.message}` },
      };
    }
    return { kind: "answer", body: data.qrcode };
  }
  const state = payload.connectionState;
  if (state === "open") return { kind: "event", event: { type: "open" } };
  if (state === "refused") {
    return {
      kind: "event",
      event: { type: "refused", reason: "qr_limit", message: "the QR code limit was reached; connect again" },
    };
  }
  if (state === "close") {
    const code = payload.statusReason;
    const reason = code === undefined ? undefined : disconnectReason(code);
    return {
      kind: "event",
      event: {
        type: "refused",
        reason: "closed",
        message: reason ? `the connection closed: ${reason.description}` : "the connection closed",
        ...(reason ? { disconnect: reason } : {}),
        state: "close",
      },
    };
  }
  return undefined;
}

/** Run a connect flow against `api`; callers validate `options` first, as `instances().connectFlow` does. */
export async function* runConnectFlow(
  api: ConnectFlowApi,
  options: ConnectFlowOptions,
): AsyncGenerator<ConnectFlowEvent, void, undefined> {
  const attempt = new ConnectAttempt(api, options);
  const mailbox = options.processor ? new Mailbox() : undefined;
  const handler: WebhookHandlerFunction = (payload) => {
    if (payload.instance !== api.instance) return;
    const item = fromWebhook(payload);
    if (item) mailbox!.push(item);
  };
  options.processor?.on(["qrcode.updated", "connection.update"], handler);
  try {
    options.signal?.throwIfAborted();
    let pending = attempt.read(await api.connect(attempt.number));
    for (;;) {
      for (const event of pending) {
        if (event.type === "open" || event.type === "refused") {
          yield await attempt.finish(event);
          return;
        }
        yield event;
      }
      options.signal?.throwIfAborted();
      const now = api.now();
      const end = attempt.givesUp(now);
      if (end) {
        yield await attempt.finish(end);
        return;
      }
      pending = await attempt.next(now, mailbox);
    }
  } finally {
    if (options.processor) options.processor.removeHandler(handler);
  }
}

const CONNECT_FLOW_KEYS: OptionKeys = {
  method: true,
  number: true,
  instance: true,
  signal: true,
  processor: true,
  pollIntervalMs: true,
  stuckAfterMs: true,
  timeoutMs: true,
  sleep: true,
};

/**
 * The problems of `options` beyond its method and number: a key it does not have (misspelt, it was ignored),
 * a NaN timeout (the flow never ended) or an interval below 1 ms (a tight loop).
 */
export function checkConnectFlowOptions(problems: Problems, options: ConnectFlowOptions): void {
  for (const [key, value] of Object.entries(options)) {
    if (Object.hasOwn(CONNECT_FLOW_KEYS, key) || value === undefined) continue;
    const guess = suggestKey(key, CONNECT_FLOW_KEYS);
    problems.add(`"${key}" is not an option${guess === undefined ? "" : `; did you mean "${guess}"?`}`);
  }
  problems.number("timeoutMs", options.timeoutMs, { min: 0 });
  problems.number("pollIntervalMs", options.pollIntervalMs, { min: 1 });
  problems.number("stuckAfterMs", options.stuckAfterMs, { min: 1 });
}

/** One connect flow's progress: the last code, when it last moved, whether it restarted, the last state. */
class ConnectAttempt {
  readonly number: string | undefined;
  readonly #pollMs: number;
  readonly #stuckMs: number;
  readonly #deadline: number;
  readonly #sleep: ConnectFlowApi["sleep"];
  #lastCode: string | null = null;
  #progressAt: number;
  #restarted = false;
  #state: string | undefined;

  constructor(readonly api: ConnectFlowApi, readonly options: ConnectFlowOptions) {
    this.number = options.method === "pairing" ? options.number : undefined;
    this.#pollMs = options.pollIntervalMs ?? 2_000;
    this.#stuckMs = options.stuckAfterMs ?? 75_000;
    this.#deadline = api.now() + (options.timeoutMs ?? 120_000);
    this.#sleep = options.sleep ?? api.sleep;
    this.#progressAt = api.now();
  }

  /** The flow's end: recorded (`settled`) before it is yielded. */
  async finish(event: ConnectFlowEvent): Promise<ConnectFlowEvent> {
    await this.api.settled?.(event);
    return event;
  }

  /** The events of one connect answer (QR body or `{instance: {state}}`). */
  read(body: unknown): ConnectFlowEvent[] {
    const answered = connectAnswerState(body);
    if (answered !== undefined) this.#state = answered;
    if (answered === "open") return [{ type: "open" }];
    if (body === null || typeof body !== "object") return [];
    const record = body as Record<string, unknown>;
    const qr = this.options.method === "qr";
    const code = qr ? nonEmptyString(record.code) ?? null : nonEmptyString(record.pairingCode) ?? null;
    if (code === null || code === this.#lastCode) return [];
    this.#lastCode = code;
    this.#progressAt = this.api.now();
    return [
      qr ? { type: "qr", code, base64: nonEmptyString(record.base64) ?? null } : { type: "pairing", code },
    ];
  }

  /** The refusal that ends the flow now: past the deadline, or stuck again after the one restart. */
  givesUp(now: number): ConnectFlowEvent | undefined {
    const state = this.#state ? { state: this.#state } : {};
    if (now >= this.#deadline) {
      return {
        type: "refused",
        reason: "timeout",
        message: `not paired within ${this.options.timeoutMs ?? 120_000} ms`,
        ...state,
      };
    }
    if (this.#restarted && now - this.#progressAt >= this.#stuckMs) {
      return {
        type: "refused",
        reason: "stuck_connecting",
        message:
          `connecting for ${this.#stuckMs} ms with no new code, also after a restart (can the server reach WhatsApp?)`,
        ...state,
      };
    }
    return undefined;
  }

  /** Wait for what happens next: restart when stuck, else a webhook (with a processor) or a poll. */
  async next(now: number, mailbox: Mailbox | undefined): Promise<ConnectFlowEvent[]> {
    if (now - this.#progressAt >= this.#stuckMs) return await this.#restart(now);
    const wait = Math.min(
      this.#deadline - now,
      this.#progressAt + this.#stuckMs - now,
      mailbox ? Infinity : this.#pollMs,
    );
    if (mailbox) {
      const item = await mailbox.next(wait, this.#sleep, this.options.signal);
      if (item?.kind === "event") return [item.event];
      if (item?.kind === "answer") return this.read(item.body);
      return [];
    }
    await this.#sleep(wait, this.options.signal);
    return await this.#poll();
  }

  /** Stuck connecting the first time: restart the instance once. */
  async #restart(now: number): Promise<ConnectFlowEvent[]> {
    this.#restarted = true;
    this.#progressAt = now;
    const events = this.read(await this.api.restart());
    // A restart starts the socket without a number: ask again for the pairing code.
    if (this.number !== undefined && events.length === 0) {
      return this.read(await this.api.connect(this.number));
    }
    return events;
  }

  /** Without webhooks: ask the state, and the current code while still connecting. */
  async #poll(): Promise<ConnectFlowEvent[]> {
    const state = await this.api.state();
    this.#state = state;
    if (state === "open") return [{ type: "open" }];
    if (state === "close") {
      const code = await this.api.disconnectCode().catch(() => undefined);
      const reason = code === undefined ? undefined : disconnectReason(code);
      return [{
        type: "refused",
        reason: "closed",
        message: reason
          ? `the connection closed: ${reason.description}`
          : "the server closed the attempt (the QR codes expired or their limit was reached); connect again",
        ...(reason ? { disconnect: reason } : {}),
        state,
      }];
    }
    // Still connecting: `connect` answers the current code without starting over.
    return this.read(await this.api.connect(this.number));
  }
}
