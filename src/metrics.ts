/**
 * Counts and times what the library does. Kept in memory (`snapshot()`, `toPrometheus()`) and also
 * recorded through `@opentelemetry/api` (meter `@gw/gateway`), which is a no-op unless an SDK is present,
 * for example Deno's built-in OpenTelemetry (`OTEL_DENO=true`).
 *
 * Labels carry route templates (`/message/sendText/:instance`), event kinds and class names, never raw
 * user values, so the number of series stays bounded.
 *
 * @module
 */

import { type Counter, type Histogram, type MeterProvider, metrics as otelMetrics } from "@opentelemetry/api";

/** Label values of one series. */
export type MetricLabels = Record<string, string>;

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

const HISTOGRAM_BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

interface SeriesState {
  labels: MetricLabels;
  count: number;
  sum: number;
  buckets?: number[];
}

/** A series whose labels and state are kept by a hot caller. */
interface BoundSeries {
  labels: MetricLabels;
  state: SeriesState;
}

function addObservation(state: SeriesState, value: number): void {
  state.count += 1;
  state.sum += value;
  state.buckets ??= HISTOGRAM_BOUNDS.map(() => 0);
  for (let i = 0; i < HISTOGRAM_BOUNDS.length; i++) {
    if (value <= HISTOGRAM_BOUNDS[i]) state.buckets[i] += 1;
  }
}

// Length-prefixed parts keep label sets apart whatever the values contain (`,`, `=`, quotes), and cost
// about half of a JSON encoding on paths that record a metric per request (the webhook handler).
// Hot callers pass the same frozen label objects again and again (see `request`): their keys are built
// once. Only frozen objects are cached, so a caller mutating its labels object never gets a stale key.
const seriesKeys = new WeakMap<MetricLabels, string>();

function seriesKey(labels: MetricLabels): string {
  if (!Object.isFrozen(labels)) return buildSeriesKey(labels);
  let key = seriesKeys.get(labels);
  if (key === undefined) {
    key = buildSeriesKey(labels);
    seriesKeys.set(labels, key);
  }
  return key;
}

function buildSeriesKey(labels: MetricLabels): string {
  const keys = Object.keys(labels);
  if (keys.length > 1) keys.sort();
  let out = "";
  for (const key of keys) {
    const value = labels[key];
    out += `${key.length}:${key}${value.length}:${value}`;
  }
  return out;
}

// Prometheus text format: label values escape `\`, `"` and newlines; HELP text escapes `\` and newlines.
function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function escapeHelp(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

// Names from `increment`/`observe` callers could hold characters Prometheus rejects.
function metricName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_:]/g, "_");
  return /^[a-zA-Z_:]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function labelName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

// `{instance}` and `:instance` both mean a path parameter; the label always uses the `:name` form.
// Route templates are few and fixed, so their labels are computed once.
const routeLabels = new Map<string, string>();

function routeLabel(route: string): string {
  let label = routeLabels.get(route);
  if (label === undefined) {
    label = route.replace(/\{([^}/]+)\}/g, ":$1");
    if (routeLabels.size < 1000) routeLabels.set(route, label);
  }
  return label;
}

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
  #counters = new Map<string, Counter>();
  #histograms = new Map<string, Histogram>();
  // Instruments from a provider registered later (an SDK set up after the first metric) replace the
  // no-op ones: the API has no proxy meter provider, so the collector notices the change itself.
  #provider?: MeterProvider;
  readonly #enabled: boolean;
  // Label objects of request outcomes, reused so that their series keys are built once.
  // Request series are touched on every call: kept per method, route and status, like the webhook ones.
  /** Request series by route, method and status: nested maps, so a request builds no key string. */
  readonly #requestSeries = new Map<string, Map<string, Map<number | string, [BoundSeries, BoundSeries]>>>();
  #requestSeriesCount = 0;
  readonly #sentSeries = new Map<string, BoundSeries>();
  // Webhook series are touched on every request: their labels and states are kept per event (and result)
  // so that the hot path skips the generic lookups. reset() drops them with the states they point to.
  readonly #webhookSeries = new Map<string, Map<string, BoundSeries>>();
  readonly #processedSeries = new Map<string, BoundSeries>();

  /**
   * Create a collector; a disabled one records nothing.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * const quiet = new MetricsCollector({ enabled: false });
   * ```
   */
  constructor(options: { enabled?: boolean } = {}) {
    this.#enabled = options.enabled ?? true;
  }

  /**
   * Add `value` (finite, >= 0; anything else is ignored) to a counter.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().increment("gateway_queue_jobs_total", { result: "processed" }, 3);
   * ```
   */
  increment(name: string, labels: MetricLabels, value = 1): void {
    if (!this.#enabled || !Number.isFinite(value) || value < 0) return;
    this.#state(name, labels).count += value;
    this.#counter(name).add(value, labels);
  }

  /**
   * Record one observation of a histogram (a NaN is ignored).
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().observe("gateway_webhook_processing_ms", { event: "messages.upsert" }, 12);
   * ```
   */
  observe(name: string, labels: MetricLabels, value: number): void {
    if (!this.#enabled || Number.isNaN(value)) return;
    addObservation(this.#state(name, labels), value);
    this.#histogram(name).record(value, labels);
  }

  /**
   * One outbound request outcome (`status` is `error` when no answer came). `route` is the template;
   * `{name}` parameters are labelled as `:name`.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().request("POST", "/message/sendText/{instance}", 201, 84);
   * ```
   */
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
    series[0].state.count += 1;
    this.#counter("gateway_requests_total").add(1, series[0].labels);
    if (Number.isNaN(durationMs)) return;
    addObservation(series[1].state, durationMs);
    this.#histogram("gateway_request_duration_ms").record(durationMs, series[1].labels);
  }

  /**
   * One retried attempt.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().retry("timeout");
   * ```
   */
  retry(reason: string): void {
    this.increment("gateway_retries_total", { reason });
  }

  /**
   * One error thrown, by its class name.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().error("ConnectionException");
   * ```
   */
  error(exception: string): void {
    this.increment("gateway_errors_total", { exception });
  }

  /**
   * One rate-limit decision: `allowed`, `waited`, `refused` or `limiter_error`.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().rateLimit("messages", "waited");
   * ```
   */
  rateLimit(bucket: string, decision: string): void {
    this.increment("gateway_rate_limit_total", { bucket, decision });
  }

  /**
   * One message sent, by type.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().messageSent("text");
   * ```
   */
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
    this.#counter(name).add(1, series.labels);
  }

  /**
   * One webhook received, by canonical event and result (HTTP status or outcome).
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().webhookReceived("messages.upsert", "200");
   * ```
   */
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
    this.#counter(name).add(1, series.labels);
  }

  /**
   * Time the handlers took for one webhook.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().webhookProcessed("messages.upsert", 7);
   * ```
   */
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
    this.#histogram(name).record(durationMs, series.labels);
  }

  /**
   * One queue job outcome: `enqueued`, `processed`, `retried`, `dead_lettered`, `enqueue_failed`.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().queueJob("processed");
   * ```
   */
  queueJob(result: string): void {
    this.increment("gateway_queue_jobs_total", { result });
  }

  /**
   * A plain-object copy of every series.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * const metrics = new MetricsCollector();
   * metrics.retry("timeout");
   * metrics.snapshot(); // { gateway_retries_total: [{ labels: { reason: "timeout" }, count: 1 }] }
   * ```
   */
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

  /**
   * Sum of a counter over the series whose labels include `labels`.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * const metrics = new MetricsCollector();
   * metrics.messageSent("text");
   * metrics.total("gateway_messages_sent_total"); // 1
   * ```
   */
  total(name: string, labels: MetricLabels = {}): number {
    let sum = 0;
    for (const state of this.#series.get(name)?.values() ?? []) {
      if (Object.entries(labels).every(([key, value]) => state.labels[key] === value)) sum += state.count;
    }
    return sum;
  }

  /**
   * Forget every value kept in memory (what was already handed to OpenTelemetry stays there: its
   * counters are cumulative).
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * new MetricsCollector().reset();
   * ```
   */
  reset(): void {
    this.#series.clear();
    this.#webhookSeries.clear();
    this.#processedSeries.clear();
    this.#requestSeries.clear();
    this.#requestSeriesCount = 0;
    this.#sentSeries.clear();
  }

  /**
   * The metrics in Prometheus' text exposition format.
   *
   * @example
   * ```ts
   * import { MetricsCollector } from "@gw/gateway";
   * const text = new MetricsCollector().toPrometheus();
   * ```
   */
  toPrometheus(): string {
    const lines: string[] = [];
    for (const [name, series] of this.#series) {
      const description = METRIC_DESCRIPTIONS[name];
      const histogram = [...series.values()].some((state) => state.buckets);
      const exposed = metricName(name);
      lines.push(`# HELP ${exposed} ${escapeHelp(description?.help ?? name)}`);
      lines.push(`# TYPE ${exposed} ${histogram ? "histogram" : "counter"}`);
      for (const state of series.values()) {
        const labelText = (extra: MetricLabels = {}) => {
          const all = { ...state.labels, ...extra };
          const parts = Object.keys(all).map((key) => `${labelName(key)}="${escapeLabel(all[key])}"`);
          return parts.length > 0 ? `{${parts.join(",")}}` : "";
        };
        if (state.buckets) {
          HISTOGRAM_BOUNDS.forEach((bound, i) =>
            lines.push(`${exposed}_bucket${labelText({ le: String(bound) })} ${state.buckets![i]}`)
          );
          lines.push(`${exposed}_bucket${labelText({ le: "+Inf" })} ${state.count}`);
          lines.push(`${exposed}_sum${labelText()} ${formatValue(state.sum)}`);
          lines.push(`${exposed}_count${labelText()} ${state.count}`);
        } else {
          lines.push(`${exposed}${labelText()} ${formatValue(state.count)}`);
        }
      }
    }
    return lines.length > 0 ? `${lines.join("\n")}\n` : "";
  }

  #checkProvider(): void {
    const provider = otelMetrics.getMeterProvider();
    if (provider === this.#provider) return;
    this.#provider = provider;
    this.#counters.clear();
    this.#histograms.clear();
  }

  #counter(name: string): Counter {
    this.#checkProvider();
    let counter = this.#counters.get(name);
    if (!counter) {
      counter = otelMetrics.getMeter("@gw/gateway").createCounter(name, {
        description: METRIC_DESCRIPTIONS[name]?.help,
      });
      this.#counters.set(name, counter);
    }
    return counter;
  }

  #histogram(name: string): Histogram {
    this.#checkProvider();
    let histogram = this.#histograms.get(name);
    if (!histogram) {
      histogram = otelMetrics.getMeter("@gw/gateway").createHistogram(name, {
        description: METRIC_DESCRIPTIONS[name]?.help,
        unit: METRIC_DESCRIPTIONS[name]?.unit,
      });
      this.#histograms.set(name, histogram);
    }
    return histogram;
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
