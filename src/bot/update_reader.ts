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

  /** The update of `payload`, with its chat's canonical id, and its chat's line. */
  read(payload: WebhookPayloadDto): Promise<InboundRead<BotUpdate>> {
    // Not `async`: most updates need no store, and an async frame per update is garbage.
    let update: BotUpdate;
    let edited: string | undefined;
    try {
      update = toBotUpdate(payload);
      edited = editedId(payload, update);
      if (edited === undefined && lidChat(update) === undefined) {
        this.#learn(payload, update);
        return Promise.resolve(lineOf(update));
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#readAsking(payload, update, edited);
  }

  /** The read of an update whose edit's origin or `@lid` chat's phone the store may know. */
  async #readAsking(
    payload: WebhookPayloadDto,
    update: BotUpdate,
    edited: string | undefined,
  ): Promise<InboundRead<BotUpdate>> {
    if (edited !== undefined) {
      update = placeEdit(payload, update, await this.#claims().origin(update.instance, edited));
    }
    this.#learn(payload, update);
    const lid = lidChat(update); // undefined without a chat too
    if (lid === undefined) return lineOf(update);
    return lineOf(renameChat(update, lid, this.#pairs.get(lid) ?? await this.#lids()?.toPhone(lid)));
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
