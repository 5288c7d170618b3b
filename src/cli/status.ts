/**
 * `status [instance]` (InstanceStatusCommand): instances with their state, owner and profile name.
 *
 * @module
 */

import { InstanceNotFoundException } from "../errors.ts";
import {
  booleanFlag,
  CONNECTION_FLAG,
  type FlagSpec,
  numberFlag,
  type ParsedFlags,
  stringFlag,
  TIMEOUT_MS_FLAG,
} from "./args.ts";
import { FlagCommand, runCommand } from "./command.ts";
import { createService, loadCliConfig, selectConnection } from "./config.ts";
import { CliError, type CliIo, EXIT_FAILED, EXIT_OK } from "./io.ts";
import { openStore } from "./store.ts";
import { renderTable, writeJson } from "./table.ts";
import { nonEmptyString } from "../util/json_shape.ts";
import { readLiveStates } from "./live_state.ts";
import type { GatewayService } from "../service.ts";

/** One instance as `status` reports it. */
export interface InstanceStatus {
  /** Instance name. */
  name: string;
  /** `open`, `connecting`, `close`, or what the server reported; null when none. */
  state: string | null;
  /** The paired account's JID (`ownerJid`), or null before pairing. */
  owner: string | null;
  /** The WhatsApp profile name, or null. */
  profileName: string | null;
  /** The library's health (`open`, `suspect`, `closed`, `banned`, ...), or null when unknown. */
  health: string | null;
  /** The send breaker (`closed`, `open`, `half_open`), or null when unknown. */
  breaker: string | null;
  /** The last disconnect reason's name (`logged_out`, `forbidden`, ...), or null. */
  reason: string | null;
}

/** What `status --json` prints. */
export interface StatusReport {
  /** Connection used. */
  connection: string;
  /** Instances, in the server's order. */
  instances: InstanceStatus[];
}

/** Map `fetchInstances` rows to {@link InstanceStatus} entries. */
export function toInstanceStatus(rows: unknown): InstanceStatus[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row) => {
    const record = (row ?? {}) as Record<string, unknown>;
    return {
      name: String(record.name ?? ""),
      state: nonEmptyString(record.connectionStatus) ?? null,
      owner: nonEmptyString(record.ownerJid) ?? null,
      profileName: nonEmptyString(record.profileName) ?? null,
      health: null,
      breaker: null,
      reason: null,
    };
  });
}

/**
 * The instances (all, or the one named) with their live state and the library's health. A single fetch
 * records nothing by itself: record what it read, as `fetchAll` does, before the live state replaces it.
 */
async function readInstances(
  gw: GatewayService,
  connection: string,
  instance: string | undefined,
  timeoutMs: number,
): Promise<InstanceStatus[]> {
  const view = gw.connection(connection);
  const rows = instance === undefined
    ? (await view.instances().fetchAll({ timeoutMs, maxRetries: 0 })).data
    : [await view.instances().fetch(instance, { timeoutMs, maxRetries: 0 })];
  const instances = toInstanceStatus(rows);
  if (instance !== undefined && instances[0]?.state) {
    const code = (rows[0] as { disconnectionReasonCode?: unknown } | null)?.disconnectionReasonCode;
    await gw.health().recordState(
      { connection, instance: instances[0].name },
      instances[0].state,
      typeof code === "number" ? code : null,
    );
  }
  await readLiveStates(gw, connection, instances, timeoutMs);
  for (const row of instances) {
    const record = await gw.health().get({ connection, instance: row.name });
    if (record.status === "unknown") continue;
    row.health = record.status;
    row.breaker = record.breaker;
    row.reason = record.reason?.name ?? null;
  }
  return instances;
}

const FLAGS: Record<string, FlagSpec> = {
  connection: CONNECTION_FLAG,
  timeout: TIMEOUT_MS_FLAG,
  json: { type: "boolean", help: 'print JSON instead of a table (also on failure: {"error": ...})' },
};

/** The `status` command. */
export class InstanceStatusCommand extends FlagCommand {
  constructor() {
    super({
      name: "status",
      summary: "list instances with their state, owner and profile name",
      argument: "[instance]",
      flags: FLAGS,
      description:
        `List the instances the api key can see (GET /instance/fetchInstances), or only the one named, with
their connection state (for an instance not open, the live state of GET /instance/connectionState: the
listed row says "close" while a socket is still connecting), the library's health and send breaker (with what senders recorded in the KV
file, when there is one), owner (the paired number's JID) and profile name. Exit code 1 when the named
instance does not exist or the server cannot be asked.`,
    });
  }

  /** Print the state of every instance, or of the one named. */
  protected async execute({ values, positionals }: ParsedFlags, io: CliIo): Promise<number> {
    const timeoutMs = numberFlag(values, "timeout", { fallback: 10_000, integer: true });
    const instance = positionals[0];
    const cli = await loadCliConfig(io, stringFlag(values, "config"));
    // With a KV file, the health senders recorded there (suspect, banned, breaker) is shown too.
    const opened = await openStore(cli, { mustExist: true }).catch(() => undefined);
    let connection = stringFlag(values, "connection") ?? "default";
    let instances: InstanceStatus[];
    try {
      const gw = createService(cli, opened ? { store: opened.store } : {});
      connection = selectConnection(gw, stringFlag(values, "connection"));
      instances = await readInstances(gw, connection, instance, timeoutMs);
    } catch (error) {
      opened?.close();
      if (error instanceof InstanceNotFoundException && instance !== undefined) {
        throw new CliError(
          `Instance "${instance}" does not exist on connection "${connection}" (create it: ${
            runCommand(`create ${instance}`)
          })`,
          EXIT_FAILED,
          {
            cause: error,
          },
        );
      }
      throw error;
    }
    opened?.close();
    if (instance !== undefined) instances = instances.filter((item) => item.name === instance);
    if (instance !== undefined && instances.length === 0) {
      throw new CliError(
        `Instance "${instance}" does not exist on connection "${connection}" (create it: ${
          runCommand(`create ${instance}`)
        })`,
        EXIT_FAILED,
      );
    }
    const report: StatusReport = { connection, instances };
    if (booleanFlag(values, "json")) {
      writeJson(io, report);
      return EXIT_OK;
    }
    if (instances.length === 0) {
      io.stdout(`No instances on connection "${connection}"\n`);
      return EXIT_OK;
    }
    io.stdout(renderTable(
      ["INSTANCE", "STATE", "HEALTH", "BREAKER", "OWNER", "PROFILE NAME"],
      instances.map((item) => [
        item.name,
        item.state,
        item.health === null ? null : `${item.health}${item.reason ? ` (${item.reason})` : ""}`,
        item.breaker,
        item.owner,
        item.profileName,
      ]),
    ));
    return EXIT_OK;
  }
}
