/**
 * `create <instance>`: create an instance, then say how to pair it; an existing one is fine (exit 0).
 *
 * @module
 */

import { InstanceAlreadyExistsException } from "../errors.ts";
import { booleanFlag, CONNECTION_FLAG, type FlagSpec, type ParsedFlags, stringFlag } from "./args.ts";
import { FlagCommand, runCommand } from "./command.ts";
import { createService, loadCliConfig, selectConnection } from "./config.ts";
import { type CliIo, EXIT_OK } from "./io.ts";
import { writeJson } from "./table.ts";

/** What `create --json` prints. */
export interface CreateReport {
  /** Connection used. */
  connection: string;
  /** Instance name. */
  instance: string;
  /** True when this run created it; false when it existed already. */
  created: boolean;
  /** Its connection state after the call (`close`, `connecting`, `open`), or null when unknown. */
  state: string | null;
  /** The next steps, one per line. */
  nextSteps: string[];
}

const FLAGS: Record<string, FlagSpec> = {
  connection: CONNECTION_FLAG,
  json: { type: "boolean", help: 'print the result as JSON (also on failure: {"error": ...})' },
};

/** The `create` command. */
export class CreateCommand extends FlagCommand {
  constructor() {
    super({
      name: "create",
      summary: "create an instance on the gateway server (then pair it with connect)",
      argument: "<instance>",
      flags: FLAGS,
      description:
        `Create the instance on the gateway server (POST /instance/create, with the global api key; WhatsApp
Baileys integration), then print the next step: pair it with a phone with "connect <instance>". An
instance that exists already is not an error: the command says so and exits 0, so it is safe to run
again. The instance's own api key (the server's "hash") is never printed. Exit code 1 when the server
refuses (for example an instance api key instead of the global one).`,
    });
  }

  /** Create the instance (an existing one is fine) and print the next step. */
  protected async execute({ values, positionals }: ParsedFlags, io: CliIo): Promise<number> {
    const instance = positionals[0].trim();
    const json = booleanFlag(values, "json");
    const gw = createService(await loadCliConfig(io, stringFlag(values, "config")));
    const connection = selectConnection(gw, stringFlag(values, "connection"));
    const instances = gw.connection(connection).instances();
    let created = true;
    try {
      await instances.create(instance, { maxRetries: 0 });
    } catch (error) {
      if (!(error instanceof InstanceAlreadyExistsException)) throw error;
      created = false;
    }
    const state = await instances.connectionState(instance, { maxRetries: 1 })
      .then((response) => response.json<string | undefined>("instance.state") ?? null)
      .catch(() => null);
    const nextSteps = state === "open"
      ? [`It is connected already: send messages from a file with ${runCommand("send <file>")}`]
      : [`Pair it with a phone: ${runCommand(`connect ${instance}`)}`];
    const report: CreateReport = { connection, instance, created, state, nextSteps };
    if (json) {
      writeJson(io, report);
      return EXIT_OK;
    }
    io.stdout(
      created
        ? `Created instance "${instance}" on connection "${connection}" (state "${state ?? "unknown"}").\n`
        : `Instance "${instance}" already exists on connection "${connection}" (state "${
          state ?? "unknown"
        }"); nothing to create.\n`,
    );
    io.stdout(`\nNext step:\n${nextSteps.map((step) => `  ${step}\n`).join("")}`);
    return EXIT_OK;
  }
}
