import type { RateLimitingConfig, RateLimitRule } from "../config.ts";
import { checkSetting } from "../config_schema.ts";
import { GatewayApiException, RateLimitException } from "../errors.ts";
import { getGatewayLogger } from "../log.ts";
import type { Logger } from "@logtape/logtape";
import type { MetricsCollector } from "../metrics.ts";
import type { RateLimitBucket, RateLimiterInterface } from "./limiter.ts";
import { MemoryRateLimiter } from "../backends/memory/rate_limiter.ts";
import { abortableSleep } from "../timing.ts";
import { errorMessage } from "../util/error_message.ts";

/** The limits used for buckets the configuration leaves out. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitBucket, Readonly<RateLimitRule>>> = {
  default: { max_attempts: 60, decay_seconds: 60 },
  messages: { max_attempts: 30, decay_seconds: 60 },
  media: { max_attempts: 10, decay_seconds: 60 },
};

/** Default of `rate_limiting.max_wait_ms`. */
export const DEFAULT_MAX_WAIT_MS = 60_000;

/** Default of `rate_limiting.key_prefix`. */
export const DEFAULT_KEY_PREFIX = "gateway";

const BUCKETS: readonly RateLimitBucket[] = ["default", "messages", "media"];

/** The in-memory limiter's own `attempt`: one replaced on an instance (a spy, a wrapper) is asked instead. */
const memoryAttempt = MemoryRateLimiter.prototype.attempt;

/** What the gate needs from its owner besides the configuration. */
export interface RateLimitGateOptions {
  /** Where decisions are counted (`gateway_rate_limit_total`). */
  metrics?: MetricsCollector;
  /** Abortable sleep: resolves after `ms`, rejects with `signal.reason` on abort (default a timer). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock, in epoch ms (default `Date.now`). */
  now?: () => number;
  /** Category segments between `gateway` and `ratelimit` (`logging.category`). */
  logCategory?: readonly string[];
}

/** One logical call asking for a slot. */
export interface RateLimitAcquireOptions {
  /** Connection name. */
  connection: string;
  /** Instance name, when the call has one. */
  instance?: string;
  /** The bucket chosen by the resource method. */
  bucket: RateLimitBucket;
  /** Aborts a wait for a slot (the wait rejects with `signal.reason`). */
  signal?: AbortSignal;
  /** The call's overall deadline (epoch ms): never wait past it. */
  deadlineAt?: number;
}

/**
 * Applies `rate_limiting` once per logical call, before its first attempt (a retry takes no slot): waits or
 * throws when the bucket is full, fails open or closed when the limiter fails.
 */
export class RateLimitGate {
  /** False when `rate_limiting.enabled` is false: `acquire` then returns at once. */
  readonly enabled: boolean;
  /** The limiter in use (the configured one, or a per-gate {@link MemoryRateLimiter}). */
  readonly limiter: RateLimiterInterface;
  readonly #limits: Record<RateLimitBucket, RateLimitRule>;
  readonly #mode: "wait" | "throw";
  readonly #onLimiterError: "open" | "closed";
  readonly #maxWaitMs: number;
  readonly #prefix: string;
  readonly #metrics?: MetricsCollector;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  readonly #log: Logger;

  /** Check `config` and build the gate; throws a `ConfigurationException` naming the bad key. */
  constructor(config: RateLimitingConfig | undefined = {}, options: RateLimitGateOptions = {}) {
    const checked = checkConfig(config ?? {});
    this.enabled = checked.enabled;
    this.limiter = checked.limiter ?? new MemoryRateLimiter({ now: options.now });
    this.#limits = checked.limits;
    this.#mode = checked.mode;
    this.#onLimiterError = checked.onLimiterError;
    this.#maxWaitMs = checked.maxWaitMs;
    this.#prefix = checked.prefix;
    this.#metrics = options.metrics;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#now = options.now ?? Date.now;
    this.#log = getGatewayLogger(...(options.logCategory ?? []), "ratelimit");
  }

  /** The rule a bucket is limited by. */
  rule(bucket: RateLimitBucket): RateLimitRule {
    return { ...this.#limits[bucket] };
  }

  /**
   * The limiter key of a call: `<prefix>:<connection>:<instance or ->:<bucket>`. `%` and `:` inside a
   * name, and an instance named `-`, are percent-encoded so two different calls never share a key.
   */
  key(connection: string, instance: string | undefined, bucket: RateLimitBucket): string {
    const named = instance ? (instance === "-" ? "%2D" : encodePart(instance)) : "-";
    return `${this.#prefix}:${encodePart(connection)}:${named}:${bucket}`;
  }

  /**
   * Take one slot for this call at once when the limiter can answer without a promise (the in-memory one, its
   * `attempt` not replaced): true when taken (or let through by a limiter that failed open). False leaves the
   * call to {@link RateLimitGate.acquire}: a full bucket, an aborted call, an unknown bucket, another limiter.
   * Throws the refusal of a limiter that failed closed.
   */
  acquireNow(options: RateLimitAcquireOptions): boolean {
    if (!this.enabled) return true;
    const limiter = this.limiter;
    const rule = this.#limits[options.bucket];
    if (
      !(limiter instanceof MemoryRateLimiter) || limiter.attempt !== memoryAttempt || rule === undefined ||
      options.signal?.aborted
    ) {
      return false;
    }
    const { connection, instance, bucket } = options;
    const key = this.key(connection, instance, bucket);
    try {
      if (!limiter.attemptNow(key, rule.max_attempts, rule.decay_seconds)) return false;
    } catch (error) {
      this.#limiterFailed(error, key, bucket, connection, instance);
      return true;
    }
    this.#metrics?.rateLimit(bucket, "allowed");
    return true;
  }

  /** Take one slot for this call; rejects with {@link RateLimitException}, or `signal.reason` when aborted. */
  async acquire(options: RateLimitAcquireOptions): Promise<void> {
    if (this.acquireNow(options)) return;
    const { connection, instance, bucket, signal, deadlineAt } = options;
    const rule = this.#limits[bucket];
    if (!rule) {
      throw new GatewayApiException(
        `Cannot rate limit: unknown bucket "${String(bucket)}" (expected ${BUCKETS.join(", ")})`,
      );
    }
    const key = this.key(connection, instance, bucket);
    const bound = Math.min(this.#now() + this.#maxWaitMs, deadlineAt ?? Infinity);
    let waited = false;
    let emptyWaits = 0;
    for (;;) {
      signal?.throwIfAborted();
      let seconds: number;
      try {
        if (await this.limiter.attempt(key, rule.max_attempts, rule.decay_seconds)) {
          this.#metrics?.rateLimit(bucket, waited ? "waited" : "allowed");
          return;
        }
        seconds = await this.limiter.availableIn(key, rule.decay_seconds);
        if (typeof seconds !== "number" || !(seconds >= 0)) {
          throw new GatewayApiException(`availableIn returned ${JSON.stringify(seconds)}`);
        }
      } catch (error) {
        this.#limiterFailed(error, key, bucket, connection, instance);
        return;
      }
      if (this.#mode === "throw") throw this.#refusal(options, seconds);
      // A refusal with nothing to wait for is a race with a window that just closed: try again at once,
      // then back off a little each time, so a limiter that always answers 0 cannot make us spin.
      let waitMs = seconds * 1000;
      if (waitMs <= 0) waitMs = emptyWaits === 0 ? 0 : Math.min(1000, 10 * 2 ** (emptyWaits - 1));
      emptyWaits = seconds > 0 ? 0 : emptyWaits + 1;
      if (this.#now() + waitMs > bound) {
        const limit = deadlineAt !== undefined && deadlineAt < this.#now() + this.#maxWaitMs
          ? "the call's deadline"
          : `max_wait_ms (${this.#maxWaitMs} ms)`;
        throw this.#refusal(options, seconds, `, after ${limit}`);
      }
      if (waitMs > 0) {
        await this.#sleep(waitMs, signal);
        waited = true;
      }
    }
  }

  /** Count a refusal and build its exception; `after` says which wait limit was reached. */
  #refusal(options: RateLimitAcquireOptions, seconds: number, after = ""): RateLimitException {
    const { connection, instance, bucket } = options;
    this.#metrics?.rateLimit(bucket, "refused");
    const where = `bucket "${bucket}" of connection "${connection}"${
      instance ? ` (instance "${instance}")` : ""
    }`;
    return new RateLimitException(
      `Rate limit reached for ${where}: next slot in ${formatSeconds(seconds)}${after}`,
      { connection, instance },
      Math.ceil(seconds),
    );
  }

  #limiterFailed(
    error: unknown,
    key: string,
    bucket: RateLimitBucket,
    connection: string,
    instance: string | undefined,
  ): void {
    this.#metrics?.rateLimit(bucket, "limiter_error");
    const message = errorMessage(error);
    if (this.#onLimiterError === "open") {
      this.#log.warn(
        "Rate limiter failed for {key}, letting the call through (on_limiter_error is open): {message}",
        { key, bucket, message, error },
      );
      return;
    }
    this.#log.error(
      "Rate limiter failed for {key}, refusing the call (on_limiter_error is closed): {message}",
      { key, bucket, message, error },
    );
    throw new RateLimitException(
      `Cannot check the rate limit for "${key}": the limiter failed (${message}) and on_limiter_error is "closed"`,
      { connection, instance, cause: error },
      null,
    );
  }
}

interface CheckedConfig {
  enabled: boolean;
  limiter?: RateLimiterInterface;
  limits: Record<RateLimitBucket, RateLimitRule>;
  mode: "wait" | "throw";
  onLimiterError: "open" | "closed";
  maxWaitMs: number;
  prefix: string;
}

/** Check `rate_limiting` against the configuration schema and fill in defaults (a rule may give one number). */
function checkConfig(config: RateLimitingConfig): CheckedConfig {
  checkSetting("rate_limiting", config);
  const given = config.limits ?? {};
  const limits = {} as Record<RateLimitBucket, RateLimitRule>;
  for (const bucket of BUCKETS) limits[bucket] = { ...DEFAULT_RATE_LIMITS[bucket], ...given[bucket] };
  return {
    enabled: config.enabled !== false,
    limiter: config.limiter,
    limits,
    mode: config.on_limit_reached ?? "wait",
    onLimiterError: config.on_limiter_error ?? "open",
    maxWaitMs: config.max_wait_ms ?? DEFAULT_MAX_WAIT_MS,
    prefix: config.key_prefix ?? DEFAULT_KEY_PREFIX,
  };
}

function encodePart(value: string): string {
  // Most names have neither character: skip the two replacements on the hot path.
  if (!value.includes("%") && !value.includes(":")) return value;
  return value.replace(/%/g, "%25").replace(/:/g, "%3A");
}

function formatSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(3))} s`;
}
