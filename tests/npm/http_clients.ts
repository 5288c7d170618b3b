/**
 * The HTTP clients the client-overhead benchmark compares a send against: ofetch and ky. Bench-only, pinned
 * here and nowhere else (see `tests/npm/miniflare.ts`).
 *
 * @module
 */

export { ofetch } from "npm:ofetch@1.5.1";
export { default as ky } from "npm:ky@2.1.0";
