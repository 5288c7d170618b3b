/**
 * Reference signature verifiers that the webhook benchmark compares against: GitHub's
 * `@octokit/webhooks-methods` and the Standard Webhooks library. Test/bench-only, pinned here and nowhere
 * else (see `tests/npm/miniflare.ts`).
 *
 * @module
 */

export { verify as octokitVerify } from "npm:@octokit/webhooks-methods@6.0.0";
export { Webhook as StandardWebhook } from "npm:standardwebhooks@1.1.1";
