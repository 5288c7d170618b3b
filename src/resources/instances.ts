/**
 * Instance management: every route under `/instance`, plus `isConnected` and `waitForConnection`.
 *
 * @module
 */

import type { RequestInput } from "../dto/request_dto.ts";
import type { ApiResponse } from "../client/response.ts";
import { CreateInstanceDto } from "../dto/create_instance.ts";
import { ConnectionException, InstanceNotFoundException, ValidationException } from "../errors.ts";
import {
  checkConnectFlowOptions,
  type ConnectFlowEvent,
  type ConnectFlowOptions,
  runConnectFlow,
} from "../instances/connect_flow.ts";
import { check } from "./args.ts";
import { readBody } from "../dto/body_spec.ts";
import { SET_PRESENCE_BODY } from "./bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type {
  ActionResult,
  ConnectionStateResponse,
  CreateInstanceResponse,
  InstanceRow,
  Presence,
  QrCode,
} from "./types.ts";
import { cliCommand } from "../errors/command_hint.ts";

/** Options of {@link InstancesResource.waitForConnection}. */
export interface WaitForConnectionOptions extends CallOptions {
  /** Give up after this many ms (default 60000). */
  timeoutMs?: number;
  /** Poll every this many ms (default 2000). */
  intervalMs?: number;
  /** Sleep used between polls (default: the client's, which tests inject through the service). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

type Sleeper = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Instances: create, connect (QR code), state, restart, presence, logout, delete. Methods that take a
 * `name` use it; without one they use the bound instance (`gw.instance(name)` or the connection's).
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k" });
 * await gw.instances().create({ instanceName: "sales", qrcode: true });
 * const qr = await gw.instances().getQrCode("sales");
 * console.log(qr?.base64);
 * ```
 */
export class InstancesResource extends Resource {
  #named(name: string | undefined, options: CallOptions | undefined): CallOptions {
    if (name === undefined) return options ?? {};
    check("instance name", (problems) => problems.text("name", name, { required: true }));
    return { ...options, instance: name };
  }

  /**
   * Create an instance (`POST /instance/create`, global api key). Integration defaults to Baileys. A name
   * that is taken throws `InstanceAlreadyExistsException` (the server answers 403).
   */
  async create(
    nameOrInput: string | RequestInput<CreateInstanceDto> | CreateInstanceDto,
    options?: CallOptions,
  ): Promise<ApiResponse<CreateInstanceResponse>> {
    const dto = CreateInstanceDto.from(
      typeof nameOrInput === "string" ? { instanceName: nameOrInput } : nameOrInput,
    );
    return await this.call<CreateInstanceResponse>(ROUTE.instance.create, {
      body: dto.toJSON(),
    }, options);
  }

  /** Delete an instance (`DELETE /instance/delete`); it is logged out first. Asynchronous on the server. */
  async delete(name?: string, options?: CallOptions): Promise<ApiResponse<ActionResult>> {
    return await this.call<ActionResult>(ROUTE.instance.delete, {}, this.#named(name, options));
  }

  /** Connect (`GET /instance/connect`): a QR code, or the state when open; with `number`, a pairing code. */
  async connect(
    name?: string,
    options?: CallOptions & { number?: string },
  ): Promise<ApiResponse<QrCode | ConnectionStateResponse>> {
    const { number: given, ...call } = options ?? {};
    const number = given === undefined
      ? undefined
      : check("connect", (problems) => problems.recipient("number", given));
    return await this.call<QrCode | ConnectionStateResponse>(
      ROUTE.instance.connect,
      { query: { number } },
      this.#named(name, call),
    );
  }

  /**
   * Pair an instance with a phone, step by step: an async iterator of `{ type: "qr", code, base64 }` (each
   * new QR code), `{ type: "pairing", code }` (the code to type on the phone), then `{ type: "open" }` or
   * `{ type: "refused", reason, message }`. Fed by the connect answers and, when `processor` is given, by
   * its `qrcode.updated` and `connection.update` webhooks; polled otherwise. Handles a server that
   * answers `{ count: 0 }` (no code yet), the QR code limit (`qr_limit`), a closed attempt (`closed`, with
   * the disconnect reason), and an instance stuck `connecting` (restarted once, then `stuck_connecting`).
   * A `pairing` flow without `number` throws `ValidationException` at once, before any request.
   *
   * @example Pair by QR code
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * for await (const step of gw.instances().connectFlow({ method: "qr" })) {
   *   if (step.type === "qr") console.log("scan:", step.code);
   *   if (step.type === "open") console.log("paired");
   *   if (step.type === "refused") console.log("gave up:", step.reason, step.message);
   * }
   * ```
   *
   * @example Pair by code
   * ```ts
   * import { GatewayService } from "@gw/gateway";
   * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
   * for await (const step of gw.instances().connectFlow({ method: "pairing", number: "5511999999999" })) {
   *   if (step.type === "pairing") console.log("type this code on the phone:", step.code);
   * }
   * ```
   */
  connectFlow(options: ConnectFlowOptions): AsyncGenerator<ConnectFlowEvent, void, undefined> {
    if (options === null || typeof options !== "object" || !["qr", "pairing"].includes(options.method)) {
      throw new ValidationException(
        `Invalid connect flow: "method" must be "qr" or "pairing", got "${String(options?.method)}"`,
        { messages: ["method must be qr or pairing"] },
      );
    }
    if (options.method === "pairing" && (options.number === undefined || options.number.trim() === "")) {
      throw new ValidationException(
        'Invalid connect flow: a pairing code needs the phone "number" to pair (or use method "qr")',
        { messages: ["number is required for pairing"] },
      );
    }
    const number = check("connect flow", (problems) => {
      checkConnectFlowOptions(problems, options);
      return options.method === "pairing" ? problems.recipient("number", options.number) : undefined;
    });
    const call: CallOptions = { signal: options.signal, instance: options.instance };
    const instance = this.instanceName(call);
    const connection = this.context.connection ??
      this.context.client.getConnectionManager().getActiveConnectionName();
    const client = this.context.client;
    const health = this.context.health;
    return runConnectFlow({
      instance,
      now: this.context.now,
      sleep: (ms, signal) => client.sleep(ms, signal),
      connect: async (pairWith) => (await this.connect(instance, { ...call, number: pairWith })).data,
      restart: async () => (await this.restart(instance, call)).data,
      state: async () =>
        (await this.connectionState(instance, call)).json<string | undefined>("instance.state"),
      disconnectCode: async () => {
        const code = (await this.fetch(instance, call)).disconnectionReasonCode;
        return typeof code === "number" ? code : undefined;
      },
      settled: async (event) => {
        const ref = { connection, instance };
        if (event.type === "open") await health?.recordConnectionUpdate(ref, { state: "open" });
        if (event.type === "refused" && event.disconnect) {
          await health?.recordConnectionUpdate(ref, { state: "close", statusReason: event.disconnect.code });
        }
      },
    }, { ...options, number });
  }

  /** The QR code `{ code, base64, pairingCode, count }` to scan, or null when already open. */
  async getQrCode(name?: string, options?: CallOptions & { number?: string }): Promise<QrCode | null> {
    const res = await this.connect(name, options);
    const data = res.data as Record<string, unknown> | null;
    if (data === null || typeof data !== "object" || "instance" in data) return null;
    return data as QrCode;
  }

  /** Every instance on the server (`GET /instance/fetchInstances`); with an instance token, only that one. */
  async fetchAll(options?: CallOptions): Promise<ApiResponse<InstanceRow[]>> {
    const res = await this.call<InstanceRow[]>(ROUTE.instance.fetchInstances, {}, options);
    if (Array.isArray(res.data)) {
      for (const row of res.data) {
        if (typeof row?.name === "string" && typeof row.connectionStatus === "string") {
          await this.recordInstanceState(row.name, row.connectionStatus, row);
        }
      }
    }
    return res;
  }

  /** One instance's row (`GET /instance/fetchInstances`); throws `InstanceNotFoundException` if none. */
  async fetch(name: string, options?: CallOptions): Promise<InstanceRow> {
    check("instance name", (problems) => problems.text("name", name, { required: true }));
    const res = await this.call<InstanceRow[]>(ROUTE.instance.fetchInstances, {
      query: { instanceName: name },
    }, options);
    const row = Array.isArray(res.data) ? res.data[0] : undefined;
    if (row === undefined) {
      throw new InstanceNotFoundException(
        `Instance "${name}" not found (create it: ${cliCommand(`create ${name}`)})`,
        {
          instance: name,
          messages: [`Instance "${name}" not found`],
        },
      );
    }
    return row;
  }

  /** The connection state (`GET /instance/connectionState`): `open`, `connecting` or `close`. */
  async connectionState(name?: string, options?: CallOptions): Promise<ApiResponse<ConnectionStateResponse>> {
    const named = this.#named(name, options);
    const instance = this.instanceName(named);
    const res = await this.call<ConnectionStateResponse>(ROUTE.instance.connectionState, {}, {
      ...named,
      instance,
    });
    const state = res.data?.instance?.state;
    if (typeof state === "string") await this.recordInstanceState(instance, state);
    return res;
  }

  /** Restart (`POST /instance/restart`); answers like `connect`. */
  async restart(
    name?: string,
    options?: CallOptions,
  ): Promise<ApiResponse<QrCode | ConnectionStateResponse>> {
    return await this.call<QrCode | ConnectionStateResponse>(
      ROUTE.instance.restart,
      {},
      this.#named(name, options),
    );
  }

  /** Log out of WhatsApp (`DELETE /instance/logout`); the instance stays and can connect again. */
  async logout(name?: string, options?: CallOptions): Promise<ApiResponse<ActionResult>> {
    return await this.call<ActionResult>(ROUTE.instance.logout, {}, this.#named(name, options));
  }

  /** Set the instance's presence (`POST /instance/setPresence`) for the bound instance. */
  async setPresence(presence: Presence, options?: CallOptions): Promise<ApiResponse<{ presence: Presence }>> {
    const body = readBody(SET_PRESENCE_BODY, { presence });
    return await this.call<{ presence: Presence }>(ROUTE.instance.setPresence, { body }, options);
  }

  /** Whether the instance's state is `open`. */
  async isConnected(name?: string, options?: CallOptions): Promise<boolean> {
    const res = await this.connectionState(name, options);
    return res.json("instance.state") === "open";
  }

  /**
   * Poll `connectionState` until `open` (every `intervalMs`, default 2000); after `timeoutMs` (default
   * 60000) throws `ConnectionException` (reason `timeout`). `signal` stops it.
   */
  async waitForConnection(
    name?: string,
    options: WaitForConnectionOptions = {},
  ): Promise<ConnectionStateResponse> {
    const { timeoutMs = 60_000, intervalMs = 2_000, sleep, ...call } = options;
    // NaN (or a string) never reaches the deadline, and an interval below 1 ms polls in a tight loop.
    check("waitForConnection options", (problems) => {
      problems.number("timeoutMs", timeoutMs, { min: 0 });
      problems.number("intervalMs", intervalMs, { min: 1 });
    });
    const named = this.#named(name, call);
    const instance = this.instanceName(named);
    const client = this.context.client;
    const wait: Sleeper = sleep ?? ((ms, signal) => client.sleep(ms, signal));
    const now = this.context.now;
    const deadline = now() + timeoutMs;
    let last: string | undefined;
    for (;;) {
      named.signal?.throwIfAborted();
      const res = await this.connectionState(undefined, named);
      last = res.json<string | undefined>("instance.state");
      if (last === "open") return res.data;
      const left = deadline - now();
      if (left <= 0) break;
      await wait(Math.min(intervalMs, left), named.signal);
    }
    throw new ConnectionException(
      `Instance "${instance}" did not connect within ${timeoutMs} ms (last state "${last ?? "unknown"}")`,
      { instance, reason: "timeout", timedOut: true },
    );
  }
}
