/**
 * Counts and times what the library does, in memory and through `@opentelemetry/api` (a no-op without an
 * SDK). Labels carry route templates, event kinds and class names, never raw user values, so the number of
 * series stays bounded.
 *
 * @module
 */

import { OtelInstruments } from "./metrics/otel.ts";

import { renderPrometheus } from "./metrics/prometheus.ts";
import {
  addObservation,
  type BoundSeries,
  type MetricLabels,
  routeLabel,
  seriesKey,
  type SeriesState,
} from "./metrics/series.ts";

export type { MetricLabels } from "./metrics/series.ts";

/** One counter or histogram series in a {@link MetricsSnapshot}. */
export interface MetricSeries {
  /** The series' labels. */
  labels: MetricLabels;
  /** Counter value, or the number of observations of a histogram. */
  count: number;
  /** Sum of observations (histograms only). */
  sum?: number;
}

/** A plain-object copy of every metric. */
export type MetricsSnapshot = Record<string, MetricSeries[]>;

/** Every metric the library records, with its help text. */
export const METRIC_DESCRIPTIONS: Readonly<
  Record<string, { readonly help: string; readonly kind: "counter" | "histogram"; readonly unit?: string }>
> = {
  gateway_requests_total: { help: "Outbound requests by method, route and status", kind: "counter" },
  gateway_request_duration_ms: { help: "Outbound request duration", kind: "histogram", unit: "ms" },
  gateway_retries_total: { help: "Retried attempts by reason", kind: "counter" },
  gateway_errors_total: { help: "Errors thrown by exception class", kind: "counter" },
  gateway_rate_limit_total: { help: "Rate-limit decisions by bucket and decision", kind: "counter" },
  gateway_messages_sent_total: { help: "Messages sent by type", kind: "counter" },
  gateway_webhooks_received_total: { help: "Webhooks received by event and result", kind: "counter" },
  gateway_webhook_processing_ms: { help: "Webhook processing time by event", kind: "histogram", unit: "ms" },
  gateway_webhook_rejections_total: { help: "Webhooks refused by status and reason", kind: "counter" },
  gateway_queue_jobs_total: { help: "Queue jobs by result", kind: "counter" },
  gateway_reconcile_messages_total: {
    help: "Inbound messages checked by the reconciler, by instance and result (seen, recovered)",
    kind: "counter",
  },
};

/**
 * The library's metrics. One is created per {@link GatewayService} (reach it with `getMetrics()`).
 *
 * @example
 * ```ts
 * import { MetricsCollector } from "@gw/gateway";
 * const metrics = new MetricsCollector();
 * metrics.messageSent("text");
 * console.log(metrics.snapshot().gateway_messages_sent_total);
 * console.log(metrics.toPrometheus());
 * ```
 */
export class MetricsCollector {
  #series = new Map<string, Map<string, SeriesState>>();
  readonly #otel = new OtelInstruments(METRIC_DESCRIPTIONS);
  readonly #enabled: boolean;
  // Request and webhook series are touched on every call: kept in nested maps (method, route, status; event,
  // result) so the hot path builds no key string. reset() drops them with the states they point to.
  readonly #requestSeries = new Map<string, Map<string, Map<number | string, [BoundSeries, BoundSeries]>>>();
  #requestSeriesCount = 0;
  readonly #sentSeries = new Map<string, BoundSeries>();
  readonly #rateLimitSeries = new Map<string, Map<string, BoundSeries>>();
  readonly #webhookSeries = new Map<string, Map<string, BoundSeries>>();
  readonly #processedSeries = new Map<string, BoundSeries>();

  /** Create a collector; a disabled one records nothing. */
  constructor(options: { enabled?: boolean } = {}) {
    this.#enabled = options.enabled ?? true;
  }

  /** Add `value` (finite, >= 0; anything else is ignored) to a counter. */
  increment(name: string, labels: MetricLabels, value = 1): void {
    if (!this.#enabled || !Number.isFinite(value) || value < 0) return;
    this.#state(name, labels).count += value;
    this.#handOverCount(name, labels, value);
  }

  /** Record one observation of a histogram (a NaN is ignored). */
  observe(name: string, labels: MetricLabels, value: number): void {
    if (!this.#enabled || Number.isNaN(value)) return;
    addObservation(this.#state(name, labels), value);
    this.#handOverObservation(name, labels, value);
  }

  /** One outbound request outcome (`status` `error`: no answer); `route` is the template. */
  request(method: string, route: string, status: number | "error", durationMs: number): void {
    if (!this.#enabled) return;
    let methods = this.#requestSeries.get(route);
    if (methods === undefined) this.#requestSeries.set(route, methods = new Map());
    let statuses = methods.get(method);
    if (statuses === undefined) methods.set(method, statuses = new Map());
    let series = statuses.get(status);
    if (series === undefined) {
      const label = routeLabel(route);
      const counted = Object.freeze({ method, route: label, status: String(status) });
      const timed = Object.freeze({ method, route: label });
      series = [
        { labels: counted, state: this.#state("gateway_requests_total", counted) },
        { labels: timed, state: this.#state("gateway_request_duration_ms", timed) },
      ];
      if (this.#requestSeriesCount < 10_000) {
        statuses.set(status, series);
        this.#requestSeriesCount += 1;
      }
    }
    const otel = this.#otel.active();
    series[0].state.count += 1;
    if (otel) this.#otel.counter("gateway_requests_total").add(1, series[0].labels);
    if (Number.isNaN(durationMs)) return;
    addObservation(series[1].state, durationMs);
    if (otel) this.#otel.histogram("gateway_request_duration_ms").record(durationMs, series[1].labels);
  }

  /** One retried attempt. */
  retry(reason: string): void {
    this.increment("gateway_retries_total", { reason });
  }

  /** One error thrown, by its class name. */
  error(exception: string): void {
    this.increment("gateway_errors_total", { exception });
  }

  /** One rate-limit decision: `allowed`, `waited`, `refused` or `limiter_error`. */
  rateLimit(bucket: string, decision: string): void {
    if (!this.#enabled) return;
    const name = "gateway_rate_limit_total";
    let series = this.#rateLimitSeries.get(bucket)?.get(decision);
    if (series === undefined) {
      const labels = Object.freeze({ bucket, decision });
      series = { labels, state: this.#state(name, labels) };
      // Buckets and decisions are few and fixed; the bound keeps a caller's odd names from growing it.
      if (this.#rateLimitSeries.size < 100) {
        let byDecision = this.#rateLimitSeries.get(bucket);
        if (byDecision === undefined) this.#rateLimitSeries.set(bucket, byDecision = new Map());
        byDecision.set(decision, series);
      }
    }
    series.state.count += 1;
    this.#handOverCount(name, series.labels, 1);
  }

  /** One message sent, by type. */
  messageSent(type: string): void {
    if (!this.#enabled) return;
    const name = "gateway_messages_sent_total";
    let series = this.#sentSeries.get(type);
    if (series === undefined) {
      const labels = Object.freeze({ type });
      series = { labels, state: this.#state(name, labels) };
      if (this.#sentSeries.size < 1000) this.#sentSeries.set(type, series);
    }
    series.state.count += 1;
    this.#handOverCount(name, series.labels, 1);
  }

  /** One webhook received, by canonical event and result (HTTP status or outcome). */
  webhookReceived(event: string, result: string): void {
    if (!this.#enabled) return;
    const name = "gateway_webhooks_received_total";
    let byResult = this.#webhookSeries.get(event);
    if (byResult === undefined) {
      byResult = new Map();
      if (this.#webhookSeries.size < 1000) this.#webhookSeries.set(event, byResult);
    }
    let series = byResult.get(result);
    if (series === undefined) {
      const labels = Object.freeze({ event, result });
      series = { labels, state: this.#state(name, labels) };
      if (byResult.size < 100) byResult.set(result, series);
    }
    series.state.count += 1;
    this.#handOverCount(name, series.labels, 1);
  }

  /** Time the handlers took for one webhook. */
  webhookProcessed(event: string, durationMs: number): void {
    if (!this.#enabled || Number.isNaN(durationMs)) return;
    const name = "gateway_webhook_processing_ms";
    let series = this.#processedSeries.get(event);
    if (series === undefined) {
      const labels = Object.freeze({ event });
      series = { labels, state: this.#state(name, labels) };
      if (this.#processedSeries.size < 1000) this.#processedSeries.set(event, series);
    }
    addObservation(series.state, durationMs);
    this.#handOverObservation(name, series.labels, durationMs);
  }

  /** One queue job outcome: `enqueued`, `processed`, `retried`, `dead_lettered`, `enqueue_failed`. */
  queueJob(result: string): void {
    this.increment("gateway_queue_jobs_total", { result });
  }

  /** A plain-object copy of every series. */
  snapshot(): MetricsSnapshot {
    const out: MetricsSnapshot = {};
    for (const [name, series] of this.#series) {
      out[name] = [...series.values()].map((state) =>
        state.buckets ? { labels: { ...state.labels }, count: state.count, sum: state.sum } : {
          labels: { ...state.labels },
          count: state.count,
        }
      );
    }
    return out;
  }

  /** Sum of a counter over the series whose labels include `labels`. */
  total(name: string, labels: MetricLabels = {}): number {
    let sum = 0;
    for (const state of this.#series.get(name)?.values() ?? []) {
      if (Object.entries(labels).every(([key, value]) => state.labels[key] === value)) sum += state.count;
    }
    return sum;
  }

  /** Forget every value kept in memory (OpenTelemetry's counters are cumulative: what it has stays). */
  reset(): void {
    this.#series.clear();
    this.#webhookSeries.clear();
    this.#processedSeries.clear();
    this.#requestSeries.clear();
    this.#requestSeriesCount = 0;
    this.#sentSeries.clear();
    this.#rateLimitSeries.clear();
  }

  /** The metrics in Prometheus' text exposition format. */
  toPrometheus(): string {
    return renderPrometheus(this.#series, METRIC_DESCRIPTIONS);
  }

  /** Add to the OpenTelemetry counter too, when a meter provider is registered. */
  #handOverCount(name: string, labels: MetricLabels, value: number): void {
    if (this.#otel.active()) this.#otel.counter(name).add(value, labels);
  }

  /** Record on the OpenTelemetry histogram too, when a meter provider is registered. */
  #handOverObservation(name: string, labels: MetricLabels, value: number): void {
    if (this.#otel.active()) this.#otel.histogram(name).record(value, labels);
  }

  #state(name: string, labels: MetricLabels): SeriesState {
    let series = this.#series.get(name);
    if (!series) {
      series = new Map();
      this.#series.set(name, series);
    }
    const key = seriesKey(labels);
    let state = series.get(key);
    if (!state) {
      state = { labels: { ...labels }, count: 0, sum: 0 };
      series.set(key, state);
    }
    return state;
  }
}
