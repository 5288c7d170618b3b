/**
 * The TypeScript compiler API, for `tools/arch_metrics.ts` only (it parses src/ to measure functions and the
 * import graph). Tool-only, pinned here and nowhere else (see `tests/npm/miniflare.ts`).
 *
 * @module
 */

export { default as ts } from "npm:typescript@5.9.3";
