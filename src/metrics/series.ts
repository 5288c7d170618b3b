/**
 * The metrics' series in memory: series keys, histogram observations, route labels.
 *
 * @module
 */

/** Label values of one series. */
export type MetricLabels = Record<string, string>;

/** The upper bounds of the histogram buckets, in ms. */
export const HISTOGRAM_BOUNDS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000];

/** One series kept in memory: its labels, count, sum and (histograms) bucket counts. */
export interface SeriesState {
  labels: MetricLabels;
  count: number;
  sum: number;
  buckets?: number[];
}

/** A series whose labels and state are kept by a hot caller. */
export interface BoundSeries {
  labels: MetricLabels;
  state: SeriesState;
}

/** Count one observation of a histogram series. */
export function addObservation(state: SeriesState, value: number): void {
  state.count += 1;
  state.sum += value;
  state.buckets ??= HISTOGRAM_BOUNDS.map(() => 0);
  for (let i = 0; i < HISTOGRAM_BOUNDS.length; i++) {
    if (value <= HISTOGRAM_BOUNDS[i]) state.buckets[i] += 1;
  }
}

// Length-prefixed parts keep label sets apart whatever the values contain (`,`, `=`, quotes), more cheaply
// than a JSON encoding on paths that record a metric per request.
// Hot callers pass the same frozen label objects again and again (see `request`): their keys are built
// once. Only frozen objects are cached, so a caller mutating its labels object never gets a stale key.
const seriesKeys = new WeakMap<MetricLabels, string>();

/** The key of a label set within its metric. */
export function seriesKey(labels: MetricLabels): string {
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

// `{instance}` and `:instance` both mean a path parameter; the label always uses the `:name` form.
// Route templates are few and fixed, so their labels are computed once.
const routeLabels = new Map<string, string>();

/** A route template as a label (`:name` path parameters). */
export function routeLabel(route: string): string {
  let label = routeLabels.get(route);
  if (label === undefined) {
    label = route.replace(/\{([^}/]+)\}/g, ":$1");
    if (routeLabels.size < 1000) routeLabels.set(route, label);
  }
  return label;
}
