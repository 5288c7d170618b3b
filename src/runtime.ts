/**
 * Which runtime the library runs on, for errors about Deno-only features (KV, cron, `Deno.serve`).
 *
 * @module
 */

interface RuntimeGlobals {
  Deno?: { version?: { deno?: string } };
  Bun?: { version?: string };
  process?: { versions?: { node?: string } };
  navigator?: { userAgent?: string };
}

/** `Deno 2.9.6`, `Bun 1.4.4`, `Node.js 20.20.2`, `Cloudflare Workers`, or `this runtime`. */
export function runtimeName(): string {
  const g = globalThis as RuntimeGlobals;
  if (typeof g.Deno?.version?.deno === "string") return `Deno ${g.Deno.version.deno}`;
  if (typeof g.Bun?.version === "string") return `Bun ${g.Bun.version}`;
  if (g.navigator?.userAgent === "Cloudflare-Workers") return "Cloudflare Workers";
  if (typeof g.process?.versions?.node === "string") return `Node.js ${g.process.versions.node}`;
  return "this runtime";
}

/**
 * Whether this is Cloudflare Workers, where a promise made in one request cannot wake code of another: what
 * orders concurrent requests through shared promises is off there.
 */
export function isWorkers(): boolean {
  return (globalThis as RuntimeGlobals).navigator?.userAgent === "Cloudflare-Workers";
}

/** The error for a Deno-only `feature` used elsewhere, with what to use `instead`. */
export function denoOnlyError(feature: string, instead: string): Error {
  return new Error(`Cannot use ${feature} on ${runtimeName()}: it needs Deno; ${instead}`);
}
