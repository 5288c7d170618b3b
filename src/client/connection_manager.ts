/**
 * Named connections: which gateway server, which key, which default instance.
 *
 * @module
 */

import type { ConnectionConfig, GatewayConfig } from "../config.ts";
import { DEFAULTS, validateConfig } from "../config.ts";
import { checkConnectionSetting } from "../config_schema.ts";
import { ConfigurationException, GatewayApiException } from "../errors.ts";

/** A validated connection: `server_url` without a trailing slash. */
export interface ResolvedConnection extends ConnectionConfig {
  /** The connection's name. */
  name: string;
}

/** Visible ASCII only: what an HTTP header value can carry unchanged, with no whitespace to trim. */
const HEADER_TOKEN = /^[\x21-\x7e]+$/;

/**
 * Check one connection and normalize it (trailing slashes trimmed). Throws a `ConfigurationException` whose
 * message names the connection and the field, never the api key; its `setting` is the key's path
 * (`connections.<name>.<field>`, or the shorthand key for the `default` connection built from the top-level
 * keys). The api key must be a header-safe token: visible ASCII, no whitespace or control characters.
 */
export function validateConnection(
  name: string,
  config: unknown,
  at: string = `connections.${name}`,
): ResolvedConnection {
  const fail: (field: string, problem: string) => never = (field, problem) => {
    throw new ConfigurationException(`Invalid connection "${name}": ${problem}`, {
      connection: name,
      setting: at === "" ? field : `${at}.${field}`,
    });
  };
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new ConfigurationException(
      `Invalid connection "${name}": expected an object with server_url and api_key`,
      { connection: name, setting: at },
    );
  }
  const input = config as Record<string, unknown>;
  checkConnectionSetting(input, at);
  const rawUrl = input.server_url;
  if (typeof rawUrl !== "string" || rawUrl.trim() === "") fail("server_url", '"server_url" is missing');
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    // The value is not echoed: a swapped URL and key would otherwise print the key.
    fail("server_url", '"server_url" must be an absolute http(s) URL');
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    fail("server_url", `"server_url" must use http or https, got "${url.protocol.slice(0, -1)}"`);
  }
  if (url.username !== "" || url.password !== "") {
    fail("server_url", '"server_url" must not carry credentials; put the key in "api_key"');
  }
  if (url.search !== "" || url.hash !== "") {
    fail("server_url", '"server_url" must not have a query string or fragment');
  }
  const apiKey = input.api_key;
  if (typeof apiKey !== "string" || apiKey.trim() === "") fail("api_key", '"api_key" is missing or blank');
  if (apiKey !== apiKey.trim()) fail("api_key", '"api_key" has leading or trailing whitespace');
  if (!HEADER_TOKEN.test(apiKey)) {
    // Never the key itself, nor where the bad character is: that would print part of it.
    fail(
      "api_key",
      '"api_key" must be a header-safe token: visible ASCII characters only, no spaces, line breaks or other control characters',
    );
  }
  const instance = input.instance;
  const timeout = input.timeout_ms;
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

  /** Build from a configuration, checked like any configuration object; every connection is validated. */
  constructor(config: GatewayConfig = {}) {
    validateConfig(config);
    for (const [name, connection] of Object.entries(config.connections ?? {})) {
      this.#connections.set(name, validateConnection(name, connection));
    }
    const shorthand = config.server_url !== undefined || config.api_key !== undefined ||
      config.instance !== undefined || config.timeout_ms !== undefined;
    if (shorthand) {
      const name = DEFAULTS.connection;
      const existing = config.connections?.[name];
      this.#connections.set(
        name,
        validateConnection(name, {
          server_url: config.server_url ?? existing?.server_url,
          api_key: config.api_key ?? existing?.api_key,
          instance: config.instance ?? existing?.instance,
          timeout_ms: config.timeout_ms ?? existing?.timeout_ms,
        }, config.connections?.[name] === undefined ? "" : `connections.${name}`),
      );
    }
    this.#active = config.default ?? DEFAULTS.connection;
    if (config.default !== undefined && !this.#connections.has(config.default)) {
      throw new ConfigurationException(
        `Invalid configuration: default connection "${config.default}" is not defined`,
        { connection: config.default, setting: "default" },
      );
    }
  }

  /** Add (or replace) a connection at runtime. */
  addConnection(name: string, config: ConnectionConfig): this {
    if (typeof name !== "string" || name.trim() === "") {
      throw new ConfigurationException("Invalid connection: the name must be a non-empty string");
    }
    this.#connections.set(name, validateConnection(name, config));
    return this;
  }

  /** Make `name` the default for later calls. Bound views made earlier keep their connection. */
  setActiveConnection(name: string): this {
    this.getConnection(name);
    this.#active = name;
    return this;
  }

  /** A connection by name (the active one when no name is given); throws when unknown. */
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

  /** Whether a connection exists. */
  hasConnection(name: string): boolean {
    return this.#connections.has(name);
  }

  /** Names of every connection, in the order they were added. */
  getConnectionNames(): string[] {
    return [...this.#connections.keys()];
  }

  /** The name used when a call names no connection. */
  getActiveConnectionName(): string {
    return this.#active;
  }

  /** Remove a connection; removing the active one is refused. */
  removeConnection(name: string): boolean {
    if (name === this.#active && this.#connections.has(name)) {
      throw new GatewayApiException(`Cannot remove connection "${name}": it is the active connection`, {
        connection: name,
      });
    }
    return this.#connections.delete(name);
  }
}
