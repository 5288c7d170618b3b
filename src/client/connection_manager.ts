/**
 * Named connections: which gateway server, which key, which default instance.
 *
 * @module
 */

import type { ConnectionConfig, GatewayConfig } from "../config.ts";
import { DEFAULTS } from "../config.ts";
import { GatewayApiException } from "../errors.ts";

/** A validated connection: `server_url` without a trailing slash. */
export interface ResolvedConnection extends ConnectionConfig {
  /** The connection's name. */
  name: string;
}

function fail(name: string, problem: string): never {
  throw new GatewayApiException(`Invalid connection "${name}": ${problem}`, { connection: name });
}

/**
 * Check one connection and normalize it (trailing slashes trimmed). Messages name the connection and the
 * field, never the api key.
 *
 * @example
 * ```ts
 * import { validateConnection } from "./connection_manager.ts";
 * validateConnection("default", { server_url: "http://localhost:8080/", api_key: "key" }).server_url;
 * // "http://localhost:8080"
 * ```
 */
export function validateConnection(name: string, config: unknown): ResolvedConnection {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    fail(name, "expected an object with server_url and api_key");
  }
  const input = config as Record<string, unknown>;
  const rawUrl = input.server_url;
  if (typeof rawUrl !== "string" || rawUrl.trim() === "") fail(name, '"server_url" is missing');
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    // The value is not echoed: a swapped URL and key would otherwise print the key.
    fail(name, '"server_url" must be an absolute http(s) URL');
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    fail(name, `"server_url" must use http or https, got "${url.protocol.slice(0, -1)}"`);
  }
  if (url.username !== "" || url.password !== "") {
    fail(name, '"server_url" must not carry credentials; put the key in "api_key"');
  }
  if (url.search !== "" || url.hash !== "") {
    fail(name, '"server_url" must not have a query string or fragment');
  }
  const apiKey = input.api_key;
  if (typeof apiKey !== "string" || apiKey.trim() === "") fail(name, '"api_key" is missing or blank');
  if (apiKey !== apiKey.trim()) fail(name, '"api_key" has leading or trailing whitespace');
  const instance = input.instance;
  if (instance !== undefined && (typeof instance !== "string" || instance.trim() === "")) {
    fail(name, '"instance" must be a non-empty string when given');
  }
  const timeout = input.timeout_ms;
  if (timeout !== undefined && (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0)) {
    fail(name, `"timeout_ms" must be a positive number, got ${JSON.stringify(timeout)}`);
  }
  const serverUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, "");
  const resolved: ResolvedConnection = { name, server_url: serverUrl, api_key: apiKey };
  if (instance !== undefined) resolved.instance = instance as string;
  if (timeout !== undefined) resolved.timeout_ms = timeout as number;
  return resolved;
}

/**
 * Holds the named connections of a service. Built from the configuration's `connections` map plus the
 * shorthand top-level `server_url` / `api_key` / `instance`, which form the `default` connection.
 *
 * @example
 * ```ts
 * import { ConnectionManager } from "@gw/gateway";
 * const manager = new ConnectionManager({ server_url: "http://localhost:8080", api_key: "key" });
 * manager.addConnection("eu", { server_url: "https://eu.example.com", api_key: "other" });
 * manager.getConnection("eu").server_url; // "https://eu.example.com"
 * ```
 */
export class ConnectionManager {
  #connections = new Map<string, ResolvedConnection>();
  #active: string;

  /**
   * Build from a configuration; every connection is validated.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * new ConnectionManager({ connections: { main: { server_url: "http://localhost:8080", api_key: "k" } }, default: "main" });
   * ```
   */
  constructor(config: GatewayConfig = {}) {
    for (const [name, connection] of Object.entries(config.connections ?? {})) {
      this.#connections.set(name, validateConnection(name, connection));
    }
    if (config.server_url !== undefined || config.api_key !== undefined) {
      const name = DEFAULTS.connection;
      const existing = config.connections?.[name];
      this.#connections.set(
        name,
        validateConnection(name, {
          ...existing,
          server_url: config.server_url ?? existing?.server_url,
          api_key: config.api_key ?? existing?.api_key,
          ...(config.instance ?? existing?.instance
            ? { instance: config.instance ?? existing?.instance }
            : {}),
        }),
      );
    }
    this.#active = config.default ?? DEFAULTS.connection;
    if (config.default !== undefined && !this.#connections.has(config.default)) {
      throw new GatewayApiException(
        `Invalid configuration: default connection "${config.default}" is not defined`,
        { connection: config.default },
      );
    }
  }

  /**
   * Add (or replace) a connection at runtime.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * new ConnectionManager().addConnection("eu", { server_url: "https://eu.example.com", api_key: "k" });
   * ```
   */
  addConnection(name: string, config: ConnectionConfig): this {
    if (typeof name !== "string" || name.trim() === "") {
      throw new GatewayApiException("Invalid connection: the name must be a non-empty string");
    }
    this.#connections.set(name, validateConnection(name, config));
    return this;
  }

  /**
   * Make `name` the default for later calls. Bound views made earlier keep their connection.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * const manager = new ConnectionManager({ connections: { a: { server_url: "http://a.test", api_key: "k" } } });
   * manager.setActiveConnection("a");
   * ```
   */
  setActiveConnection(name: string): this {
    this.getConnection(name);
    this.#active = name;
    return this;
  }

  /**
   * A connection by name (the active one when no name is given); throws when unknown.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * const manager = new ConnectionManager({ server_url: "http://localhost:8080", api_key: "k" });
   * manager.getConnection().name; // "default"
   * ```
   */
  getConnection(name?: string): ResolvedConnection {
    const key = name ?? this.#active;
    const connection = this.#connections.get(key);
    if (!connection) {
      const known = [...this.#connections.keys()].map((item) => `"${item}"`).join(", ") || "none";
      throw new GatewayApiException(`Unknown connection "${key}" (configured: ${known})`, {
        connection: key,
      });
    }
    return connection;
  }

  /**
   * Whether a connection exists.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * new ConnectionManager().hasConnection("default"); // false
   * ```
   */
  hasConnection(name: string): boolean {
    return this.#connections.has(name);
  }

  /**
   * Names of every connection, in the order they were added.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * new ConnectionManager({ server_url: "http://localhost:8080", api_key: "k" }).getConnectionNames(); // ["default"]
   * ```
   */
  getConnectionNames(): string[] {
    return [...this.#connections.keys()];
  }

  /**
   * The name used when a call names no connection.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * new ConnectionManager().getActiveConnectionName(); // "default"
   * ```
   */
  getActiveConnectionName(): string {
    return this.#active;
  }

  /**
   * Remove a connection; removing the active one is refused.
   *
   * @example
   * ```ts
   * import { ConnectionManager } from "@gw/gateway";
   * const manager = new ConnectionManager({ server_url: "http://localhost:8080", api_key: "k" });
   * manager.addConnection("old", { server_url: "http://old.test", api_key: "k" }).removeConnection("old");
   * ```
   */
  removeConnection(name: string): boolean {
    if (name === this.#active && this.#connections.has(name)) {
      throw new GatewayApiException(`Cannot remove connection "${name}": it is the active connection`, {
        connection: name,
      });
    }
    return this.#connections.delete(name);
  }
}
