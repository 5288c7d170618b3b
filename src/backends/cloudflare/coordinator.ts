/**
 * `GatewayCoordinator`: the Durable Object behind the limiter, dedupe and shared state on Workers.
 *
 * @module
 */

import { ConfigurationException } from "../../errors.ts";
import * as fixedWindow from "../../ratelimit/window.ts";
import type { DurableObjectState, DurableObjectStorage, SqlStorage } from "./bindings.ts";
import { storageRunner } from "./sql.ts";
import { SqlStateEngine, STATE_INDEX_SQL, STATE_TABLE_SQL } from "./sql_state.ts";
import type { CoordinatorRequest } from "./coordinator_protocol.ts";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS gateway_rate_windows (key TEXT NOT NULL PRIMARY KEY, count INTEGER NOT NULL, " +
  "max INTEGER NOT NULL, start NUMERIC NOT NULL, reset NUMERIC NOT NULL, purge_at NUMERIC NOT NULL)",
  "CREATE TABLE IF NOT EXISTS gateway_dedupe (key TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, " +
  "expires_at NUMERIC NOT NULL, purge_at NUMERIC NOT NULL)",
  STATE_TABLE_SQL,
  STATE_INDEX_SQL,
];

/** The caller's clock when it sent one (tests, or a limiter built with `now`), else the object's. */
function clockOf(now: number | undefined): number {
  if (now === undefined) return Date.now();
  if (typeof now !== "number" || !Number.isFinite(now)) {
    throw new TypeError("the clock must be a finite time");
  }
  return now;
}

/** Errors of the caller's input travel back as themselves; anything else is the coordinator failing. */
const INPUT_ERRORS = new Set(["TypeError", "RangeError"]);

/**
 * A Durable Object that serializes the claims of its keys: a rate limit window, a webhook dedupe claim or a
 * state entry changes in one synchronous SQL step inside the object, and the runtime runs one object in one
 * place, so every isolate of every region that asks it gets one exact answer. Use it through
 * `CoordinatorRateLimiter`, `CoordinatorWebhookDedupe` and `CoordinatorState` (the library's interfaces);
 * they pick the object by name: one per rate limit key (so per instance and bucket), one for the dedupe
 * claims, one per state namespace.
 *
 * It needs SQLite storage: declare the class in a `new_sqlite_classes` migration. Expired rate limit windows
 * and dedupe claims are deleted by the object's alarm, so an object whose keys all expired keeps nothing;
 * expired state entries read as absent at once and are swept by later writes (on the callers' clock).
 *
 * ```toml
 * [[durable_objects.bindings]]
 * name = "COORDINATOR"
 * class_name = "GatewayCoordinator"
 *
 * [[migrations]]
 * tag = "v1"
 * new_sqlite_classes = ["GatewayCoordinator"]
 * ```
 *
 * @example Export it from the Worker's main module
 * ```ts
 * import { GatewayCoordinator } from "@gw/gateway/cloudflare";
 * export { GatewayCoordinator };
 * export default { fetch: () => new Response("ok") };
 * ```
 */
export class GatewayCoordinator {
  readonly #storage: DurableObjectStorage;
  readonly #sql: SqlStorage;
  /** When the alarm is set to run, as far as this instance knows (undefined: not known or none). */
  #alarmAt: number | undefined;

  /** Called by the runtime with the object's state. */
  constructor(ctx: DurableObjectState, _env?: unknown) {
    const sql = ctx.storage.sql;
    if (sql === undefined) {
      throw new ConfigurationException(
        "Cannot start GatewayCoordinator: it needs SQLite storage; declare it under new_sqlite_classes " +
          "in wrangler.toml's [[migrations]]",
        { setting: "migrations.new_sqlite_classes" },
      );
    }
    this.#storage = ctx.storage;
    this.#sql = sql;
    for (const statement of SCHEMA) sql.exec(statement);
  }

  /**
   * Answer one operation (a JSON `POST` from the client classes).
   *
   * @example
   * ```ts
   * import type { GatewayCoordinator } from "@gw/gateway/cloudflare";
   * declare const coordinator: GatewayCoordinator; // built by the runtime
   * const response = await coordinator.fetch(new Request("https://coordinator/", {
   *   method: "POST",
   *   body: JSON.stringify({ op: "ratelimit.attempt", key: "k", maxAttempts: 1, decaySeconds: 60 }),
   * }));
   * ```
   */
  async fetch(request: Request): Promise<Response> {
    let body: CoordinatorRequest;
    try {
      body = await request.json() as CoordinatorRequest;
    } catch {
      return Response.json({ error: { name: "TypeError", message: "the request is not JSON" } }, {
        status: 400,
      });
    }
    try {
      const result = await this.#answer(body);
      return Response.json({ result: result ?? null });
    } catch (error) {
      const name = error instanceof Error ? error.name : "Error";
      const message = error instanceof Error ? error.message : String(error);
      return Response.json({ error: { name, message } }, { status: INPUT_ERRORS.has(name) ? 400 : 500 });
    }
  }

  async #answer(body: CoordinatorRequest): Promise<unknown> {
    const sql = this.#sql;
    switch (body.op) {
      case "ratelimit.attempt":
        return await this.#attempt(body);
      case "ratelimit.availableIn":
        fixedWindow.checkDecay(body.key, body.decaySeconds);
        return fixedWindow.secondsUntilFree(this.#window(body.key), clockOf(body.now));
      case "ratelimit.clear":
        sql.exec("DELETE FROM gateway_rate_windows WHERE key = ?", body.key);
        return null;
      case "dedupe.claim":
        return await this.#claim(body);
      case "dedupe.complete":
        await this.#putClaim(body.key, "done", body.now, body.windowMs);
        return null;
      case "dedupe.release":
        sql.exec("DELETE FROM gateway_dedupe WHERE key = ?", body.key);
        return null;
      case "dedupe.state": {
        const [row] = sql.exec<{ state: string }>(
          "SELECT state FROM gateway_dedupe WHERE key = ? AND expires_at > ?",
          body.key,
          body.now,
        ).toArray();
        return row?.state ?? null;
      }
      case "state.get":
        return await this.#state(body.now).get(body.namespace, body.key);
      case "state.set":
        return await this.#state(body.now).set(body.namespace, body.key, body.value, body.options);
      case "state.delete":
        return await this.#state(body.now).delete(body.namespace, body.key, body.options);
      case "state.list":
        return await this.#state(body.now).list(body.namespace, body.options);
      default:
        throw new TypeError(`unknown operation "${String((body as { op?: unknown }).op)}"`);
    }
  }

  /** Count one attempt in the key's fixed window; false when the window is full. */
  async #attempt(body: Extract<CoordinatorRequest, { op: "ratelimit.attempt" }>): Promise<boolean> {
    fixedWindow.checkArguments(body.key, body.maxAttempts, body.decaySeconds);
    const now = clockOf(body.now);
    const next = fixedWindow.nextWindow(this.#window(body.key), body.maxAttempts, body.decaySeconds, now);
    if (next === null) return false;
    const purgeAt = this.#purgeAt(next.reset, now);
    this.#sql.exec(
      "INSERT OR REPLACE INTO gateway_rate_windows (key, count, max, start, reset, purge_at) " +
        "VALUES (?, ?, ?, ?, ?, ?)",
      body.key,
      next.count,
      next.max,
      next.start,
      next.reset,
      purgeAt,
    );
    await this.#wakeAt(purgeAt);
    return true;
  }

  /** Take the dedupe claim of a key nobody holds; false when it is held (processing or done). */
  async #claim(body: Extract<CoordinatorRequest, { op: "dedupe.claim" }>): Promise<boolean> {
    const held = this.#sql.exec(
      "SELECT 1 FROM gateway_dedupe WHERE key = ? AND expires_at > ?",
      body.key,
      body.now,
    ).toArray();
    if (held.length > 0) return false;
    await this.#putClaim(body.key, "processing", body.now, body.leaseMs);
    return true;
  }

  /** The alarm: delete what has expired, and wake again at the next expiry. */
  async alarm(): Promise<void> {
    const now = Date.now();
    const sql = this.#sql;
    sql.exec("DELETE FROM gateway_rate_windows WHERE purge_at <= ?", now);
    sql.exec("DELETE FROM gateway_dedupe WHERE purge_at <= ?", now);
    const [row] = sql.exec<{ next: number | null }>(
      "SELECT MIN(next) AS next FROM (SELECT MIN(purge_at) AS next FROM gateway_rate_windows " +
        "UNION ALL SELECT MIN(purge_at) FROM gateway_dedupe)",
    ).toArray();
    this.#alarmAt = undefined;
    if (row?.next !== null && row?.next !== undefined) await this.#wakeAt(Number(row.next));
  }

  #window(key: string): fixedWindow.WindowEntry | undefined {
    const [row] = this.#sql.exec<fixedWindow.WindowEntry>(
      "SELECT count, max, start, reset FROM gateway_rate_windows WHERE key = ?",
      key,
    ).toArray();
    return row === undefined ? undefined : {
      count: Number(row.count),
      max: Number(row.max),
      start: Number(row.start),
      reset: Number(row.reset),
    };
  }

  async #putClaim(key: string, state: "processing" | "done", now: number, holdMs: number): Promise<void> {
    if (typeof key !== "string" || key === "" || !Number.isFinite(now) || !Number.isFinite(holdMs)) {
      throw new TypeError("a dedupe claim needs a non-empty key and finite times");
    }
    const purgeAt = this.#purgeAt(now + holdMs, now);
    this.#sql.exec(
      "INSERT OR REPLACE INTO gateway_dedupe (key, state, expires_at, purge_at) VALUES (?, ?, ?, ?)",
      key,
      state,
      now + holdMs,
      purgeAt,
    );
    await this.#wakeAt(purgeAt);
  }

  // Rows expire on the caller's clock but are deleted by the alarm on the object's: the same delay, counted
  // from now on the object's clock (a caller's clock that is off never gets a live row deleted early).
  #purgeAt(expiresAt: number, callerNow: number): number {
    return Date.now() + Math.max(0, expiresAt - callerNow);
  }

  #state(now: number): SqlStateEngine {
    if (typeof now !== "number" || !Number.isFinite(now)) {
      throw new TypeError("the state clock must be a finite time");
    }
    return new SqlStateEngine(storageRunner(this.#sql), () => now);
  }

  // One alarm per object: moved earlier when something expires sooner; the alarm itself finds the next.
  async #wakeAt(time: number): Promise<void> {
    if (this.#alarmAt !== undefined && this.#alarmAt <= time) return;
    this.#alarmAt = time;
    await this.#storage.setAlarm(time);
  }
}
