/**
 * `ProxyDto`: the body of `POST /proxy/set/{instance}`.
 *
 * @module
 */

import { PROXY_PROTOCOLS, readPort } from "./create_instance.ts";
import { requireObject } from "./message_options.ts";
import { RequestDto } from "./request_dto.ts";
import { Problems } from "./validate.ts";
import { compact } from "../util/json_shape.ts";

/** What `ProxyDto.from` accepts. */
export interface ProxyInput {
  /** Default true. */
  enabled?: boolean;
  /** Host name or address. */
  host: string;
  /** Port (sent as a string). */
  port: string | number;
  /** `http`, `https`, `socks4` or `socks5`. */
  protocol: "http" | "https" | "socks4" | "socks5";
  /** User. */
  username?: string;
  /** Password. */
  password?: string;
}

/** The fields of a `ProxyDto`, as sent: the port is a string and `enabled` is always set. */
export interface ProxyDto extends Readonly<Omit<ProxyInput, "enabled" | "port">> {
  /** On or off. */
  readonly enabled: boolean;
  /** Port, as a string. */
  readonly port: string;
}

/**
 * A validated proxy configuration. The server tests the proxy live and answers 400 "Invalid proxy" when it
 * does not work.
 *
 * @example
 * ```ts
 * import { ProxyDto } from "@gw/gateway";
 * ProxyDto.from({ host: "proxy.example.com", port: 3128, protocol: "http" }).toJSON();
 * // { enabled: true, host: "proxy.example.com", port: "3128", protocol: "http" }
 * ```
 */
export class ProxyDto extends RequestDto {
  /**
   * Validate; throws `ValidationException` naming every bad field.
   *
   * @example
   * ```ts
   * import { ProxyDto } from "@gw/gateway";
   * ProxyDto.from({ host: "10.0.0.1", port: "1080", protocol: "socks5", username: "u", password: "p" });
   * ```
   */
  static from(input: ProxyInput | ProxyDto): ProxyDto {
    if (input instanceof ProxyDto) return input;
    const record = requireObject(input, "proxy");
    const problems = new Problems();
    const enabled = problems.bool("enabled", record.enabled) ?? true;
    const host = problems.text("host", record.host, { required: true })?.trim();
    const port = record.port === undefined || record.port === null
      ? (problems.add("port is required"), undefined)
      : readPort(problems, "port", record.port);
    const protocol = problems.oneOf("protocol", record.protocol, PROXY_PROTOCOLS, { required: true });
    const username = problems.text("username", record.username);
    const password = problems.text("password", record.password);
    problems.throwIfAny("proxy");
    return new ProxyDto(
      compact({ enabled, host: host!, port: port!, protocol: protocol!, username, password }),
    );
  }
}
