/**
 * `miniflare` (the Cloudflare Workers runtime, workerd, through npm) for the Worker tests: pinned here and
 * nowhere else. Test-only npm packages live in `tests/npm/`, one module per package, never in deno.json's
 * `imports`, so `deno task demo`, the CLI tasks and a user's `deno add` never resolve or install them; only
 * a run that imports the module does. See "Dependencies" in docs/runtimes.md.
 *
 * @module
 */

export { Miniflare } from "npm:miniflare@4.20260730.0";
