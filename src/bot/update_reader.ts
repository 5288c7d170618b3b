/**
 * Reads a payload into its update once at arrival, the chat named by its canonical id. Pairs an arrival
 * shows serve the next one at once, before the store learns them: an `@lid` message right behind the one
 * that showed its pair joins the same line.
 *
 * @module
 */

import type { LidDirectory } from "../address/lid_directory.ts";
import type { InboundMessageClaims } from "../webhooks/message_claims.ts";
import type { WebhookPayloadDto } from "../webhooks/payload.ts";
import type { InboundRead } from "../inbound/lines.ts";
import { editedId, lidChat, placeEdit, renameChat, toBotUpdate } from "./update.ts";
import type { BotUpdate } from "./update_types.ts";

// Pairs seen by this process's arrivals (LID user → phone digits), the newest kept.
const MAX_PAIRS = 10_000;

/** Reads updates at their arrival. */
export class UpdateReader {
  readonly #claims: () => InboundMessageClaims;
  readonly #lids: () => LidDirectory | undefined;
  readonly #pairs = new Map<string, string>();

  constructor(claims: () => InboundMessageClaims, lids: () => LidDirectory | undefined) {
    this.#claims = claims;
    this.#lids = lids;
  }

  /**
   * The update of `payload`, with its chat's canonical id, and its chat's line: at once, unless the store
   * must be asked (an edit's origin, an `@lid` chat's phone), which the line's arrival order allows for.
   */
  read(payload: WebhookPayloadDto): InboundRead<BotUpdate> | Promise<InboundRead<BotUpdate>> {
    try {
      const update = toBotUpdate(payload);
      const edited = editedId(payload, update);
      if (edited !== undefined) return this.#readEdit(payload, update, edited);
      return this.#named(payload, update);
    } catch (error) {
      return Promise.reject(error); // fails the update's processing, as a failed store read does
    }
  }

  async #readEdit(
    payload: WebhookPayloadDto,
    update: BotUpdate,
    edited: string,
  ): Promise<InboundRead<BotUpdate>> {
    const placed = placeEdit(payload, update, await this.#claims().origin(update.instance, edited));
    return await this.#named(payload, placed);
  }

  /** `update` with its chat named canonically (a promise only when the directory must be asked). */
  #named(
    payload: WebhookPayloadDto,
    update: BotUpdate,
  ): InboundRead<BotUpdate> | Promise<InboundRead<BotUpdate>> {
    this.#learn(payload, update);
    const lid = lidChat(update); // undefined without a chat too
    if (lid === undefined) return lineOf(update);
    const known = this.#pairs.get(lid);
    if (known !== undefined) return lineOf(renameChat(update, lid, known));
    const directory = this.#lids();
    if (directory === undefined) return lineOf(update);
    return directory.toPhone(lid).then((phone) => lineOf(renameChat(update, lid, phone)));
  }

  /** A payload that names its chat by `@lid` and carries the phone form too shows the pair. */
  #learn(payload: WebhookPayloadDto, update: BotUpdate): void {
    const lid = payload.remoteJid;
    const chat = update.chat?.id;
    if (lid === undefined || !lid.endsWith("@lid") || chat === undefined) return;
    const phone = /^(\d+)@s\.whatsapp\.net$/.exec(chat)?.[1];
    if (phone === undefined || this.#pairs.get(lid) === phone) return;
    this.#pairs.delete(lid);
    this.#pairs.set(lid, phone);
    if (this.#pairs.size > MAX_PAIRS) this.#pairs.delete(this.#pairs.keys().next().value!);
  }
}

function lineOf(update: BotUpdate): InboundRead<BotUpdate> {
  return { value: update, line: update.chat?.id };
}
