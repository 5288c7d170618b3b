/**
 * The connect flow: pair an instance with a phone by QR code or pairing code, as an async iterator of
 * what happens (`qr`, `pairing`, `open`, `refused`), fed by the connect answers and either the webhooks
 * (`qrcode.updated`, `connection.update`) or polling.
 *
 * @module
 */

import { type DisconnectReason, disconnectReason } from "../health/disconnect_reason.ts";
import { connectAnswerState } from "../server/server_version.ts";
import type { WebhookHandlerFunction, WebhookProcessor } from "../webhooks/processor.ts";
import { nonEmptyString } from "../util/json_shape.ts";

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
  /**
   * Take QR codes and state changes from this processor's webhooks (`qrcode.updated`,
   * `connection.update`) instead of polling.
   */
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

/**
 * Run a connect flow against `api`. Callers validate `options` first (a pairing flow without a number is
 * refused before any call); `instances().connectFlow(...)` does.
 */
export async function* runConnectFlow(
  api: ConnectFlowApi,
  options: ConnectFlowOptions,
): AsyncGenerator<ConnectFlowEvent, void, undefined> {
  const { method, signal } = options;
  const number = method === "pairing" ? options.number : undefined;
  const pollMs = options.pollIntervalMs ?? 2_000;
  const stuckMs = options.stuckAfterMs ?? 75_000;
  const deadline = api.now() + (options.timeoutMs ?? 120_000);
  const sleep = options.sleep ?? api.sleep;
  const mailbox = options.processor ? new Mailbox() : undefined;
  const handler: WebhookHandlerFunction = (payload) => {
    if (payload.instance !== api.instance) return;
    const item = fromWebhook(payload);
    if (item) mailbox!.push(item);
  };
  options.processor?.on(["qrcode.updated", "connection.update"], handler);
  let lastCode: string | null = null;
  let progressAt = api.now();
  let restarted = false;
  let state: string | undefined;

  const finish = async (event: ConnectFlowEvent) => {
    await api.settled?.(event);
    return event;
  };
  /** The events of one connect answer (QR body or `{instance: {state}}`). */
  const read = (body: unknown): ConnectFlowEvent[] => {
    const answered = connectAnswerState(body);
    if (answered !== undefined) state = answered;
    if (answered === "open") return [{ type: "open" }];
    if (body === null || typeof body !== "object") return [];
    const record = body as Record<string, unknown>;
    const code = method === "qr"
      ? nonEmptyString(record.code) ?? null
      : nonEmptyString(record.pairingCode) ?? null;
    if (code === null || code === lastCode) return [];
    lastCode = code;
    progressAt = api.now();
    return [
      method === "qr"
        ? { type: "qr", code, base64: nonEmptyString(record.base64) ?? null }
        : { type: "pairing", code },
    ];
  };

  try {
    signal?.throwIfAborted();
    let pending = read(await api.connect(number));
    for (;;) {
      for (const event of pending) {
        if (event.type === "open" || event.type === "refused") {
          yield await finish(event);
          return;
        }
        yield event;
      }
      pending = [];
      signal?.throwIfAborted();
      const now = api.now();
      if (now >= deadline) {
        yield await finish({
          type: "refused",
          reason: "timeout",
          message: `not paired within ${options.timeoutMs ?? 120_000} ms`,
          ...(state ? { state } : {}),
        });
        return;
      }
      if (now - progressAt >= stuckMs) {
        if (restarted) {
          yield await finish({
            type: "refused",
            reason: "stuck_connecting",
            message:
              `connecting for ${stuckMs} ms with no new code, also after a restart (can the server reach WhatsApp?)`,
            ...(state ? { state } : {}),
          });
          return;
        }
        restarted = true;
        progressAt = now;
        pending = read(await api.restart());
        // A restart starts the socket without a number: ask again for the pairing code.
        if (number !== undefined && pending.length === 0) pending = read(await api.connect(number));
        continue;
      }
      const wait = Math.min(deadline - now, progressAt + stuckMs - now, mailbox ? Infinity : pollMs);
      if (mailbox) {
        const item = await mailbox.next(wait, sleep, signal);
        if (item?.kind === "event") pending = [item.event];
        else if (item?.kind === "answer") pending = read(item.body);
        continue;
      }
      await sleep(wait, signal);
      state = await api.state();
      if (state === "open") {
        pending = [{ type: "open" }];
      } else if (state === "close") {
        const code = await api.disconnectCode().catch(() => undefined);
        const reason = code === undefined ? undefined : disconnectReason(code);
        pending = [{
          type: "refused",
          reason: "closed",
          message: reason
            ? `the connection closed: ${reason.description}`
            : "the server closed the attempt (the QR codes expired or their limit was reached); connect again",
          ...(reason ? { disconnect: reason } : {}),
          state,
        }];
      } else {
        // Still connecting: `connect` answers the current code without starting over.
        pending = read(await api.connect(number));
      }
    }
  } finally {
    if (options.processor) options.processor.removeHandler(handler);
  }
}
