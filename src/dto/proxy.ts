/**
 * `ProxyDto`: the body of `POST /proxy/set/{instance}`.
 *
 * @module
 */

import { PROXY_PROTOCOLS, readPort } from "./create_instance.ts";
import { type BodySpec, readBody } from "./body_spec.ts";
import { RequestDto } from "./request_dto.ts";
import type { Problems } from "./validate.ts";

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

/** The body of `/proxy/set` (`enabled` defaults to true, the port may be a number). */
export const PROXY_BODY: BodySpec = {
  what: "proxy",
  requiredNotEmpty: true,
  fields: {
    enabled: { type: "boolean", required: true, strictBoolean: true, default: true },
    host: { type: "string", required: true, trim: true },
    port: { type: "string", required: true, read: readRequiredPort },
    protocol: { type: "string", required: true, values: PROXY_PROTOCOLS, serverEnum: false },
    username: { type: "string" },
    password: { type: "string" },
  },
};

function readRequiredPort(problems: Problems, field: string, value: unknown): string | undefined {
  if (value !== undefined && value !== null) return readPort(problems, field, value);
  problems.add(`${field} is required`);
  return undefined;
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
  /** Validate; throws `ValidationException` naming every bad field. */
  static from(input: ProxyInput | ProxyDto): ProxyDto {
    if (input instanceof ProxyDto) return input;
    return new ProxyDto(readBody(PROXY_BODY, input) as unknown as ProxyDto);
  }
}
