/**
 * How the Redis backends reach Redis: a `redis://` URL (a client is opened on first use and closed by
 * `close()`), or a client the application already has (never closed here). Internal to `./redis`.
 *
 * The npm client (`@redis/client`) is imported only when a URL is used, so that this module loads in any
 * runtime and nobody who passes their own client loads a second one.
 *
 * @module
 */

import { ConfigurationException, ConnectionException } from "../../errors.ts";
import { timerMs } from "../../util/checks.ts";

/** The Redis client calls the backends use; node-redis (`@redis/client` 4+) fits as it is. */
export interface RedisCommandClient {
  /** Send one command (name and arguments as strings) and resolve to its raw reply. */
  sendCommand(args: string[]): Promise<unknown>;
  /** Whether the client is connected (node-redis); when false, the backend calls `connect()` once. */
  readonly isOpen?: boolean;
  /** Connect the client (node-redis). */
  connect?(): Promise<unknown>;
}

/**
 * Where a backend connects: `url` (`redis://` or `rediss://`; opened on first use, closed by `close()`),
 * or `client` (yours, never closed here).
 */
export type RedisConnectionOptions =
  | {
    /** `redis://[[user]:password@]host[:port][/db]` or `rediss://` for TLS. */
    url: string;
    /** Milliseconds to wait for the connection (default 5000). */
    connectTimeoutMs?: number;
    client?: undefined;
  }
  | {
    /** A client you opened and close yourself (node-redis `createClient()`). */
    client: RedisCommandClient;
    url?: undefined;
    connectTimeoutMs?: undefined;
  };

/** The keys of {@link RedisBackendOptions}, for the unknown-key check of each backend. Internal. */
export const REDIS_BACKEND_OPTION_KEYS = {
  url: true,
  connectTimeoutMs: true,
  client: true,
  prefix: true,
} as const;

/** Options every Redis backend takes: the connection and the key prefix. */
export type RedisBackendOptions = RedisConnectionOptions & {
  /** Prefix of every key the backend writes (default `gateway:`); give each application its own. */
  prefix?: string;
};

interface OwnedClient extends RedisCommandClient {
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

const RECONNECT_ATTEMPTS = 3;

/** `host:port` of a Redis URL, for messages (never the password). */
export function redisAddress(url: URL): string {
  return `${url.hostname}:${url.port === "" ? "6379" : url.port}`;
}

/** Check the options: a usable URL or a client, a string prefix. Throws `ConfigurationException`. */
export function checkRedisOptions(owner: string, options: RedisBackendOptions): URL | undefined {
  if (options === null || typeof options !== "object") {
    throw new ConfigurationException(`Cannot create ${owner}: pass { url } or { client }`);
  }
  if (options.prefix !== undefined && (typeof options.prefix !== "string" || options.prefix === "")) {
    throw new ConfigurationException(`Cannot create ${owner}: "prefix" must be a non-empty string`, {
      setting: "prefix",
    });
  }
  if (options.client !== undefined) {
    if (typeof options.client?.sendCommand !== "function") {
      throw new ConfigurationException(
        `Cannot create ${owner}: "client" must be a Redis client with sendCommand (node-redis)`,
        { setting: "client" },
      );
    }
    return undefined;
  }
  if (typeof options.url !== "string") {
    throw new ConfigurationException(`Cannot create ${owner}: pass { url } or { client }`, {
      setting: "url",
    });
  }
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new ConfigurationException(`Cannot create ${owner}: "url" is not a URL`, { setting: "url" });
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new ConfigurationException(
      `Cannot create ${owner}: "url" must start with redis:// or rediss://, got "${url.protocol}//"`,
      { setting: "url" },
    );
  }
  timerMs(`Cannot create ${owner}`, "connectTimeoutMs", options.connectTimeoutMs, 0);
  return url;
}

/**
 * One backend's way to Redis. Commands wait for the connection; a connection that cannot be made fails
 * every waiting command with a `ConnectionException` naming host and port.
 */
export class RedisConnection {
  readonly prefix: string;
  readonly #given: RedisCommandClient | undefined;
  readonly #url: URL | undefined;
  readonly #rawUrl: string | undefined;
  readonly #timeoutMs: number;
  #ready: Promise<RedisCommandClient> | undefined;
  #owned: OwnedClient | undefined;
  #closed = false;

  constructor(owner: string, options: RedisBackendOptions) {
    this.#url = checkRedisOptions(owner, options);
    this.#rawUrl = options.url;
    this.#given = options.client;
    this.#timeoutMs = options.connectTimeoutMs ?? 5000;
    this.prefix = options.prefix ?? "gateway:";
  }

  /** Send one command; strings in, the raw reply out. */
  async command<T = unknown>(args: string[]): Promise<T> {
    const client = await this.#client();
    return await client.sendCommand(args) as T;
  }

  #client(): Promise<RedisCommandClient> {
    if (this.#closed) {
      return Promise.reject(new ConnectionException("Cannot use Redis: the backend is closed"));
    }
    if (this.#ready === undefined) {
      this.#ready = this.#given !== undefined ? this.#useGiven(this.#given) : this.#open();
      this.#ready.catch(() => this.#ready = undefined);
    }
    return this.#ready;
  }

  async #useGiven(client: RedisCommandClient): Promise<RedisCommandClient> {
    if (client.isOpen === false && typeof client.connect === "function") await client.connect();
    return client;
  }

  async #open(): Promise<RedisCommandClient> {
    const url = this.#url!;
    // deno-lint-ignore no-import-prefix -- only ./redis users install the client (not in the import map)
    const { createClient } = await import("npm:@redis/client@6.3.1");
    const client = createClient({
      url: this.#rawUrl,
      socket: {
        connectTimeout: this.#timeoutMs,
        // A few quick reconnects ride out a restart; then commands fail instead of waiting forever.
        reconnectStrategy: (retries: number, cause: Error) =>
          retries >= RECONNECT_ATTEMPTS ? cause : Math.min(100 * 2 ** retries, 1000),
      },
    }) as unknown as OwnedClient;
    // node-redis reports socket errors as events as well; the failing command carries them to the caller.
    client.on("error", () => {});
    this.#owned = client;
    try {
      await client.connect();
    } catch (error) {
      this.#owned = undefined;
      try {
        client.destroy();
      } catch {
        // never connected
      }
      throw new ConnectionException(
        `Cannot connect to Redis at "${redisAddress(url)}": ${describe(error)}`,
        { reason: "network", cause: error },
      );
    }
    return client;
  }

  /** Close the client this connection opened (a given client stays open). */
  async close(): Promise<void> {
    this.#closed = true;
    const ready = this.#ready;
    this.#ready = undefined;
    if (ready !== undefined) await ready.catch(() => undefined);
    const owned = this.#owned;
    this.#owned = undefined;
    if (owned !== undefined) {
      try {
        await owned.close();
      } catch {
        owned.destroy();
      }
    }
  }
}

function describe(error: unknown): string {
  // Socket errors name the address, never the URL; keep only the first line of anything else.
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] || "unknown error";
}
