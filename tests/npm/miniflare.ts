/**
 * `miniflare` (the Cloudflare Workers runtime, workerd, through npm) for the Worker tests: pinned here and
 * nowhere else. Test-only npm packages live in `tests/npm/`, one module per package, never in deno.json's
 * `imports`, so `deno task demo`, the CLI tasks and a user's `deno add` never resolve or install them; only
 * a run that imports the module does. See "Dependencies" in docs/runtimes.md.
 *
 * @module
 */

import { underFaketime } from "../helpers/real_clock.ts";

export { Miniflare } from "npm:miniflare@4.20260730.0";

// Under `faketime` workerd must keep the real clock (libfaketime deadlocks it): miniflare starts it
// through this wrapper, which drops libfaketime's variables (docs/testing.md).
if (underFaketime() && !Deno.env.has("MINIFLARE_WORKERD_PATH")) {
  Deno.env.set(
    "MINIFLARE_WORKERD_PATH",
    new URL("../helpers/workerd_real_clock.sh", import.meta.url).pathname,
  );
}
