/** Shared helpers for the simulated gateway server tests. */

import { GatewaySimulator, type SimulatorOptions } from "../../src/testing/mod.ts";

export const KEY = "test-key";
export const BASE = "http://gateway.test";

/** A simulator with the test key. */
export function newSim(options: SimulatorOptions = {}): GatewaySimulator {
  return new GatewaySimulator({ apiKey: KEY, ...options });
}

export interface CallResult {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

export interface CallOptions {
  /** apikey header; null sends none. Default: the global key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Raw body text instead of JSON. */
  raw?: string;
}

/** One request through `sim.handle`, parsed. */
export async function call(
  sim: GatewaySimulator,
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers.apikey = key;
  let payload: string | undefined;
  if (options.raw !== undefined) payload = options.raw;
  else if (body !== undefined) payload = JSON.stringify(body);
  if (payload !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const res = await sim.handle(new Request(BASE + path, { method, headers, body: payload }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    // Keep the text.
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Create an instance through the API (global key) and return its hash. */
export async function createInstance(
  sim: GatewaySimulator,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await call(sim, "POST", "/instance/create", {
    instanceName: name,
    integration: "WHATSAPP-BAILEYS",
    ...extra,
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.hash;
}

/** Create and connect an instance (`open`), with a known owner number. */
export async function openInstance(
  sim: GatewaySimulator,
  name = "sales",
  extra: Record<string, unknown> = {},
) {
  const token = await createInstance(sim, name, extra);
  await call(sim, "GET", `/instance/connect/${encodeURIComponent(name)}`);
  sim.simulateScan(name, { number: "5511988887777", profileName: "Sales" });
  return token;
}

/** A fetch that records webhook deliveries and answers with the given statuses in turn (then 200). */
export function recordingFetch(statuses: (number | Error)[] = []) {
  const calls: { url: string; headers: Record<string, string>; body: string }[] = [];
  const queue = [...statuses];
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const headers = Object.fromEntries(new Headers(init?.headers));
    calls.push({ url, headers, body: String(init?.body) });
    const next = queue.shift() ?? 200;
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve(new Response("ok", { status: next }));
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}
