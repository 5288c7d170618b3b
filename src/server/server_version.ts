// Contract §10.

import { GatewayApiException, type GatewayErrorContext } from "../errors.ts";
import { isRecord } from "../util/json_shape.ts";

/** The release lines this library knows. */
export type ServerLine = "2.3" | "2.4";

/** What differs between the release lines, as far as a client sees it. */
export interface ServerFeatures {
  /** Business routes answer 503 `LICENSE_REQUIRED` until the server is activated (2.4). */
  licenseGate: boolean;
  /** `restart` on non-Baileys channels answers `{instance: {instanceName, status}}` (2.3.7 and later). */
  restartAnswersStatus: boolean;
  /** `POST /message/sendCarousel` and `POST /chat/markMessageAsPlayed` exist (2.4). */
  carouselAndPlayed: boolean;
  /** Per-instance webhooks carry `X-Instance-Name`, `X-Event-Type` and `X-Timestamp` headers (2.4). */
  webhookInstanceHeaders: boolean;
}

/** The server, as {@link GatewayService.serverInfo} reports it. */
export interface ServerDetails {
  /** Version as reported, e.g. `2.3.6`. */
  version: string;
  /** Major, minor and patch numbers. */
  major: number;
  /** Minor version. */
  minor: number;
  /** Patch version (0 when absent). */
  patch: number;
  /** Release line: `2.3` for 2.0 to 2.3, `2.4` for 2.4 and later 2.x. */
  line: ServerLine;
  /** What this line does differently. */
  features: ServerFeatures;
  /** `clientName` configured on the server, or null. */
  clientName: string | null;
  /** The WhatsApp Web version the server uses, or null. */
  whatsappWebVersion: string | null;
  /** The welcome body as the server sent it. */
  raw: Record<string, unknown>;
}

/**
 * The server runs a version this library does not know (another major version, or no version at all).
 *
 * @example
 * ```ts
 * import { UnsupportedServerException } from "@gw/gateway";
 * console.log(new UnsupportedServerException("Unsupported", { version: "3.0.0" }).version); // "3.0.0"
 * ```
 */
export class UnsupportedServerException extends GatewayApiException {
  /** The version the server reported, or null when it reported none. */
  readonly version: string | null;

  /** Build the error. */
  constructor(message: string, context: GatewayErrorContext & { version?: string | null } = {}) {
    super(message, context);
    this.version = context.version ?? null;
  }
}

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?/;

function compare(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Read the welcome body of `GET /`; throws `UnsupportedServerException` unless the major version is 2. */
export function readServerDetails(body: unknown, connection: string): ServerDetails {
  const raw = isRecord(body) ? body : {};
  const version = typeof raw.version === "string" ? raw.version.trim() : "";
  const match = VERSION.exec(version);
  if (!match) {
    throw new UnsupportedServerException(
      `Cannot identify the gateway server on connection "${connection}": GET / reported no version ` +
        `(is the server_url an Evolution API 2.x server?)`,
      { connection, version: version === "" ? null : version, body: raw },
    );
  }
  const numbers: [number, number, number] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  if (numbers[0] !== 2) {
    throw new UnsupportedServerException(
      `Unsupported gateway server version "${version}" on connection "${connection}": this library knows ` +
        `2.3.x and 2.4.x`,
      { connection, version, body: raw },
    );
  }
  const line: ServerLine = numbers[1] >= 4 ? "2.4" : "2.3";
  return {
    version,
    major: numbers[0],
    minor: numbers[1],
    patch: numbers[2],
    line,
    features: {
      licenseGate: line === "2.4",
      restartAnswersStatus: compare(numbers, [2, 3, 7]) >= 0,
      carouselAndPlayed: line === "2.4",
      webhookInstanceHeaders: line === "2.4",
    },
    clientName: typeof raw.clientName === "string" ? raw.clientName : null,
    whatsappWebVersion: typeof raw.whatsappWebVersion === "string" ? raw.whatsappWebVersion : null,
    raw,
  };
}

/** The state in a `connect` or `restart` answer (`instance.state`, or 2.3.7's `instance.status`). */
export function connectAnswerState(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const instance = (body as { instance?: unknown }).instance;
  if (instance === null || typeof instance !== "object") return undefined;
  const { state, status } = instance as { state?: unknown; status?: unknown };
  if (typeof state === "string") return state;
  return typeof status === "string" ? status : undefined;
}
