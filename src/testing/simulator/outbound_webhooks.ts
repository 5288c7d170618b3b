/**
 * Delivery of outbound webhooks the way the reference server does it (contract §5.1): a JSON POST
 * with axios' default headers plus the webhook's custom `headers` (a `jwt_key` turns into a Bearer
 * JWT), retried with exponential backoff except on the non-retryable statuses.
 *
 * Deliveries for one instance run one after another, so a test sees events in the order they were
 * emitted.
 *
 * @module
 */

import { webhookJwt } from "./jwt.ts";
import type { WebhookDeliveryRecord, WebhookRetryOptions } from "./types.ts";
import { errorMessage } from "../../util/error_message.ts";

/**
 * The retry defaults of the reference server (`WEBHOOK_RETRY_*`, `WEBHOOK_REQUEST_TIMEOUT_MS`).
 *
 * @example
 * ```ts
 * import { DEFAULT_WEBHOOK_RETRY } from "@gw/gateway/testing";
 * console.log(DEFAULT_WEBHOOK_RETRY.maxAttempts); // 10
 * ```
 */
export const DEFAULT_WEBHOOK_RETRY: Readonly<Required<WebhookRetryOptions>> = {
  maxAttempts: 10,
  initialDelayMs: 5000,
  maxDelayMs: 300_000,
  jitterFactor: 0.2,
  exponential: true,
  nonRetryableStatuses: [400, 401, 403, 404, 422],
  timeoutMs: 30_000,
};

/** What the dispatcher needs from the simulator. */
export interface DispatcherOptions {
  fetch?: typeof fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  sign?: (rawBody: string) => Promise<HeadersInit>;
  retry?: WebhookRetryOptions;
  now: () => number;
  random: () => number;
}

/** One delivery to start. */
export interface DeliveryRequest {
  event: string;
  instance: string;
  url: string;
  body: Record<string, unknown>;
  customHeaders: Record<string, unknown> | null;
}

/** Sends webhooks, keeps the `deliveries` log and lets tests wait for it to drain. */
export class WebhookDispatcher {
  /** Every delivery started, in order. */
  readonly deliveries: WebhookDeliveryRecord[] = [];
  readonly #options: DispatcherOptions;
  readonly #retry: Required<WebhookRetryOptions>;
  readonly #chains = new Map<string, Promise<void>>();
  readonly #pending = new Set<Promise<void>>();
  readonly #wakers = new Set<() => void>();
  #abort = new AbortController();
  #flushing = 0;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#retry = { ...DEFAULT_WEBHOOK_RETRY, ...options.retry };
  }

  /** Queue a delivery behind the earlier ones of the same instance. */
  dispatch(request: DeliveryRequest): void {
    // Serialise now: the body is a snapshot of the event, whatever happens to the objects later.
    const rawBody = JSON.stringify(request.body);
    const record: WebhookDeliveryRecord = {
      event: request.event,
      instance: request.instance,
      url: request.url,
      status: null,
      attempts: 0,
      state: "pending",
      body: JSON.parse(rawBody),
      headers: {},
      delays: [],
    };
    this.deliveries.push(record);
    const signal = this.#abort.signal;
    const previous = this.#chains.get(request.instance) ?? Promise.resolve();
    const run: Promise<void> = previous
      .then(() => this.#deliver(record, request, rawBody, signal))
      .catch((error) => {
        record.state = "failed";
        record.error = errorMessage(error);
      })
      .finally(() => {
        this.#pending.delete(run);
        if (this.#chains.get(request.instance) === run) this.#chains.delete(request.instance);
      });
    this.#chains.set(request.instance, run);
    this.#pending.add(run);
  }

  /** Resolves when no delivery is pending (retry waits included). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Cut every retry wait short and resolve when no delivery is pending. */
  async flush(): Promise<void> {
    this.#flushing++;
    try {
      for (const wake of [...this.#wakers]) wake();
      await this.idle();
    } finally {
      this.#flushing--;
    }
  }

  /** Abort every pending delivery (they end as `failed`); later dispatches work again. */
  cancel(): void {
    this.#abort.abort(new DOMException("Simulator was reset", "AbortError"));
    this.#abort = new AbortController();
  }

  /** Forget the delivery log. */
  clearLog(): void {
    this.deliveries.length = 0;
  }

  async #headers(request: DeliveryRequest, rawBody: string): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/plain, */*",
      "user-agent": "axios/1.7.9",
    };
    for (const [name, value] of Object.entries(request.customHeaders ?? {})) {
      if (name === "jwt_key") {
        headers.authorization = `Bearer ${await webhookJwt(String(value), this.#options.now())}`;
      } else {
        headers[name] = String(value);
      }
    }
    if (this.#options.sign) {
      new Headers(await this.#options.sign(rawBody)).forEach((value, name) => headers[name] = value);
    }
    return headers;
  }

  async #deliver(
    record: WebhookDeliveryRecord,
    request: DeliveryRequest,
    rawBody: string,
    signal: AbortSignal,
  ): Promise<void> {
    record.headers = await this.#headers(request, rawBody);
    const retry = this.#retry;
    const fetchFn = this.#options.fetch ?? globalThis.fetch;
    for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
      if (signal.aborted) throw signal.reason;
      record.attempts = attempt;
      const outcome = await this.#attempt(fetchFn, record, rawBody, signal);
      if (outcome === "delivered") {
        record.state = "delivered";
        return;
      }
      if (outcome === "final" || attempt === retry.maxAttempts) break;
      const wait = this.#delayFor(attempt);
      record.delays.push(wait);
      await this.#sleep(wait, signal);
    }
    record.state = "failed";
  }

  async #attempt(
    fetchFn: typeof fetch,
    record: WebhookDeliveryRecord,
    rawBody: string,
    signal: AbortSignal,
  ): Promise<"delivered" | "retry" | "final"> {
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException("Webhook request timed out", "TimeoutError")),
      this.#retry.timeoutMs,
    );
    const onAbort = () => timeout.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await fetchFn(record.url, {
        method: "POST",
        headers: record.headers,
        body: rawBody,
        signal: timeout.signal,
      });
      await response.arrayBuffer().catch(() => undefined);
      record.status = response.status;
      delete record.error;
      if (response.ok) return "delivered";
      return this.#retry.nonRetryableStatuses.includes(response.status) ? "final" : "retry";
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      record.error = errorMessage(error);
      return "retry";
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  // The server's backoff: initial * 2^(n-1) capped at the maximum, ±jitter, never below the initial wait.
  #delayFor(attempt: number): number {
    const { initialDelayMs, maxDelayMs, jitterFactor, exponential } = this.#retry;
    const base = exponential ? Math.min(initialDelayMs * 2 ** (attempt - 1), maxDelayMs) : initialDelayMs;
    const jitter = base * jitterFactor * (this.#options.random() * 2 - 1);
    return Math.max(initialDelayMs, Math.round(base + jitter));
  }

  #sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (this.#flushing > 0 || ms <= 0 || signal.aborted) return Promise.resolve();
    if (this.#options.sleep) return this.#options.sleep(ms, signal);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        signal.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#wakers.add(wake);
      signal.addEventListener("abort", wake, { once: true });
    });
  }
}
