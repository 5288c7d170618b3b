import { HISTOGRAM_BOUNDS, type MetricLabels, type SeriesState } from "./series.ts";

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

/** Every series as Prometheus text: HELP and TYPE lines, then the samples; empty without series. */
export function renderPrometheus(
  metrics: ReadonlyMap<string, ReadonlyMap<string, SeriesState>>,
  descriptions: Readonly<Record<string, { readonly help: string }>>,
): string {
  const lines: string[] = [];
  for (const [name, series] of metrics) {
    const histogram = [...series.values()].some((state) => state.buckets);
    const exposed = metricName(name);
    lines.push(`# HELP ${exposed} ${escapeHelp(descriptions[name]?.help ?? name)}`);
    lines.push(`# TYPE ${exposed} ${histogram ? "histogram" : "counter"}`);
    for (const state of series.values()) lines.push(...samples(exposed, state));
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/** The sample lines of one series. */
function samples(exposed: string, state: SeriesState): string[] {
  const labelText = (extra: MetricLabels = {}) => {
    const all = { ...state.labels, ...extra };
    const parts = Object.keys(all).map((key) => `${labelName(key)}="${escapeLabel(all[key])}"`);
    return parts.length > 0 ? `{${parts.join(",")}}` : "";
  };
  if (!state.buckets) return [`${exposed}${labelText()} ${formatValue(state.count)}`];
  const buckets = state.buckets;
  return [
    ...HISTOGRAM_BOUNDS.map((bound, i) =>
      `${exposed}_bucket${labelText({ le: String(bound) })} ${buckets[i]}`
    ),
    `${exposed}_bucket${labelText({ le: "+Inf" })} ${state.count}`,
    `${exposed}_sum${labelText()} ${formatValue(state.sum)}`,
    `${exposed}_count${labelText()} ${state.count}`,
  ];
}
