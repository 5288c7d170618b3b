/**
 * The OpenTelemetry side of the metrics: counters and histograms of the meter `@gw/gateway`, created
 * once per name and provider.
 *
 * @module
 */

import { type Counter, type Histogram, type MeterProvider, metrics as otelMetrics } from "@opentelemetry/api";

/** The instruments of the current meter provider, by metric name. */
export class OtelInstruments {
  #counters = new Map<string, Counter>();
  #histograms = new Map<string, Histogram>();
  // Instruments from a provider registered later (an SDK set up after the first metric) replace the
  // no-op ones: the API has no proxy meter provider, so the collector notices the change itself.
  #provider?: MeterProvider;

  constructor(
    readonly descriptions: Readonly<Record<string, { readonly help: string; readonly unit?: string }>>,
  ) {}

  /** The counter of `name`. */
  counter(name: string): Counter {
    this.#checkProvider();
    let counter = this.#counters.get(name);
    if (!counter) {
      counter = otelMetrics.getMeter("@gw/gateway").createCounter(name, {
        description: this.descriptions[name]?.help,
      });
      this.#counters.set(name, counter);
    }
    return counter;
  }

  /** The histogram of `name`. */
  histogram(name: string): Histogram {
    this.#checkProvider();
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

  #checkProvider(): void {
    const provider = otelMetrics.getMeterProvider();
    if (provider === this.#provider) return;
    this.#provider = provider;
    this.#counters.clear();
    this.#histograms.clear();
  }
}
