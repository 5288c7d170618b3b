import {
  type Counter,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics as otelMetrics,
} from "@opentelemetry/api";

/** The instruments of meter `@gw/gateway` under the current provider, created once per name. */
export class OtelInstruments {
  #counters = new Map<string, Counter>();
  #histograms = new Map<string, Histogram>();
  // Instruments from a provider registered later (an SDK set up after the first metric) replace the
  // no-op ones: the API has no proxy meter provider, so the collector notices the change itself.
  #provider?: MeterProvider;
  #active = false;

  constructor(
    readonly descriptions: Readonly<Record<string, { readonly help: string; readonly unit?: string }>>,
  ) {}

  /**
   * Whether a real meter provider is registered, asked before each recording (an SDK set up later is picked
   * up); without one nothing is handed over, as even a no-op hand-over costs lookups on every send.
   */
  active(): boolean {
    const provider = otelMetrics.getMeterProvider();
    if (provider !== this.#provider) {
      this.#provider = provider;
      this.#counters.clear();
      this.#histograms.clear();
      this.#active = provider.getMeter("@gw/gateway") !== createNoopMeter();
    }
    return this.#active;
  }

  /** The counter of `name` (ask {@link OtelInstruments.active} first). */
  counter(name: string): Counter {
    let counter = this.#counters.get(name);
    if (!counter) {
      counter = otelMetrics.getMeter("@gw/gateway").createCounter(name, {
        description: this.descriptions[name]?.help,
      });
      this.#counters.set(name, counter);
    }
    return counter;
  }

  /** The histogram of `name` (ask {@link OtelInstruments.active} first). */
  histogram(name: string): Histogram {
    let histogram = this.#histograms.get(name);
    if (!histogram) {
      histogram = otelMetrics.getMeter("@gw/gateway").createHistogram(name, {
        description: this.descriptions[name]?.help,
        unit: this.descriptions[name]?.unit,
      });
      this.#histograms.set(name, histogram);
    }
    return histogram;
  }
}
