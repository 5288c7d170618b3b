/**
 * The instance's own addresses in a group, for `groups: "mentions"`. An `@lid` group names the instance by
 * an `@lid` no webhook states; `GET /group/participants` does. So an unplaced `@lid` has the bot read that
 * group's members once, and the directory learns every pair (the own one then serves every group).
 *
 * @module
 */

import type { LidDirectory } from "../address/lid_directory.ts";
import { getGatewayLogger } from "../log.ts";
import type { GatewayService } from "../service.ts";
import type { BotUpdate } from "./update_types.ts";

// Groups whose members were read, per instance; bounded, since a group is read at most once per process.
const MAX_READ_GROUPS = 10_000;

/** Whether the update names someone by an `@lid` (a mention, or the author of the quoted message). */
function namesByLid(update: BotUpdate): boolean {
  const msg = update.msg;
  if (msg === undefined) return false;
  return msg.mentions.some((jid) => jid.endsWith("@lid")) ||
    msg.quoted?.participant?.endsWith("@lid") === true;
}

/** Finds the instance's own JIDs: its phone JID, and its `@lid` once the directory knows it. */
export class OwnJids {
  readonly #directory: LidDirectory | undefined;
  readonly #api: (instance: string) => GatewayService;
  readonly #readGroups = new Map<string, Promise<void>>();

  constructor(directory: LidDirectory | undefined, api: (instance: string) => GatewayService) {
    this.#directory = directory;
    this.#api = api;
  }

  /** The instance's JIDs in `update`'s group: `own` and its `@lid` (the members read first when needed). */
  async of(update: BotUpdate, own: string | undefined): Promise<string[]> {
    if (own === undefined) return [];
    const directory = this.#directory;
    if (directory === undefined) return [own];
    let lid = await directory.toLid(own);
    const group = update.chat?.id;
    if (lid === undefined && group !== undefined && namesByLid(update)) {
      // A message that arrives while the members are read waits for that read, not judged without it.
      await this.#read(update.instance, group);
      lid = await directory.toLid(own);
    }
    return lid === undefined ? [own] : [own, lid.includes("@") ? lid : `${lid}@lid`];
  }

  /** The read of `group`'s members: started on the first call, the same (settled) promise after. */
  #read(instance: string, group: string): Promise<void> {
    const key = `${instance}/${group}`;
    let read = this.#readGroups.get(key);
    if (read !== undefined) return read;
    if (this.#readGroups.size >= MAX_READ_GROUPS) this.#readGroups.clear();
    this.#readGroups.set(key, read = this.#learnMembers(instance, group));
    return read;
  }

  async #learnMembers(instance: string, group: string): Promise<void> {
    try {
      const answer = await this.#api(instance).groups().participants(group);
      await this.#directory!.learn(answer.data.participants);
    } catch (error) {
      // Judged on the phone JID alone; the group is not read again: a refusing server costs one request.
      getGatewayLogger("bot").warn(
        "Bot: cannot read the members of {group} to find the instance's own @lid ({error}); its @lid mentions are not recognised there",
        { group, error: error instanceof Error ? error.message : String(error) },
      );
    }
  }
}
