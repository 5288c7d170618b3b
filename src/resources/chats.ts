/**
 * Chats, contacts and stored messages: the `/chat` routes that are not about the own profile.
 *
 * @module
 */

import type { ApiResponse } from "../client/response.ts";
import { ValidationException } from "../errors.ts";
import { isRecord } from "../util/json_shape.ts";
import { personJid } from "../dto/validate.ts";
import { check, messageRefs, recipient } from "./args.ts";
import { readBody } from "../dto/body_spec.ts";
import { BLOCK_STATUS_BODY, SEND_PRESENCE_BODY } from "./bodies.ts";
import { type CallOptions, Resource } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type {
  ChatRow,
  ContactRow,
  FindMessagesQuery,
  FindMessagesResponse,
  MessageRecord,
  MessageRef,
  OnWhatsAppResult,
  Presence,
} from "./types.ts";

/** The last message of a chat, as `archiveChat` and `markChatUnread` take it. */
export interface LastMessage {
  /** Its key. */
  key: MessageRef;
  /** Unix seconds. */
  messageTimestamp?: number;
}

/** A filter with the server's page/offset paging (`findContacts`, `findStatusMessage`). */
export interface PagedQuery {
  /** Filters. */
  where?: Record<string, unknown>;
  /** Page from 1. */
  page?: number;
  /** Page size. */
  offset?: number;
}

/** The `findChats` filter (take/skip paging). */
export interface FindChatsQuery {
  /** Filters (`remoteJid`, `messageTimestamp: {gte, lte}`). */
  where?: Record<string, unknown>;
  /** Page size. */
  take?: number;
  /** Rows to skip. */
  skip?: number;
}

function chatTarget(chat: string | LastMessage, what: string): Record<string, unknown> {
  if (typeof chat === "string") return { chat: personJid(recipient(chat, "chat")) };
  if (!isRecord(chat)) {
    throw new ValidationException(`Invalid ${what}: expected a chat JID or a last message`, {
      messages: ["chat must be a JID or { key, messageTimestamp }"],
    });
  }
  const [key] = messageRefs("lastMessage.key", [chat.key]);
  return { lastMessage: { ...chat, key }, chat: key.remoteJid };
}

/**
 * Chats: number checks, read marks, archive, delete/edit messages, presence, block, lookups.
 *
 * @example
 * ```ts
 * import { GatewayService } from "@gw/gateway";
 * const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "k", instance: "sales" });
 * if (await gw.chats().isOnWhatsApp("5511999999999")) {
 *   for await (const message of gw.chats().iterateMessages({ where: { key: { remoteJid: "5511999999999@s.whatsapp.net" } } })) {
 *     console.log(message.key.id);
 *   }
 * }
 * ```
 */
export class ChatsResource extends Resource {
  /** Which numbers are on WhatsApp (`POST /chat/whatsappNumbers`). */
  async checkNumbers(numbers: string[], options?: CallOptions): Promise<ApiResponse<OnWhatsAppResult[]>> {
    const list = check("number check", (problems) => {
      const items = problems.array("numbers", numbers, { required: true, minItems: 1 }) ?? [];
      return items.map((item, index) => problems.recipient(`numbers[${index}]`, item));
    });
    return await this.call<OnWhatsAppResult[]>(ROUTE.chat.whatsappNumbers, {
      body: { numbers: list },
    }, options);
  }

  /** Whether one number is on WhatsApp. */
  async isOnWhatsApp(number: string, options?: CallOptions): Promise<boolean> {
    const res = await this.checkNumbers([number], options);
    return Array.isArray(res.data) && res.data.some((row) => row?.exists === true);
  }

  /** Mark messages read (`POST /chat/markMessageAsRead`). */
  async markAsRead(
    message: MessageRef | MessageRef[],
    options?: CallOptions,
  ): Promise<ApiResponse<{ message: string; read: string }>> {
    const readMessages = messageRefs("readMessages", Array.isArray(message) ? message : [message]);
    return await this.call<{ message: string; read: string }>(ROUTE.chat.markMessageAsRead, {
      body: { readMessages },
    }, options);
  }

  /** Archive a chat (`POST /chat/archiveChat`), given its JID or its last message. */
  async archive(
    chat: string | LastMessage,
    options?: CallOptions,
  ): Promise<ApiResponse<{ chatId: string; archived: boolean }>> {
    return await this.#archive(chat, true, options);
  }

  /** Unarchive a chat (`POST /chat/archiveChat` with `archive: false`). */
  async unarchive(
    chat: string | LastMessage,
    options?: CallOptions,
  ): Promise<ApiResponse<{ chatId: string; archived: boolean }>> {
    return await this.#archive(chat, false, options);
  }

  #archive(
    chat: string | LastMessage,
    archive: boolean,
    options?: CallOptions,
  ): Promise<ApiResponse<{ chatId: string; archived: boolean }>> {
    const target = chatTarget(chat, archive ? "archive" : "unarchive");
    return this.call(ROUTE.chat.archiveChat, {
      body: { ...target, archive },
    }, options);
  }

  /** Mark a chat unread (`POST /chat/markChatUnread`), given its last message. */
  async markUnread(
    lastMessage: LastMessage,
    options?: CallOptions,
  ): Promise<ApiResponse<{ chatId: string; markedChatUnread: boolean }>> {
    if (typeof lastMessage === "string") {
      throw new ValidationException("Invalid mark unread: the server needs the chat's last message", {
        messages: ["lastMessage must be { key: { remoteJid, id, fromMe }, messageTimestamp? }"],
      });
    }
    return await this.call(ROUTE.chat.markChatUnread, {
      body: chatTarget(lastMessage, "mark unread"),
    }, options);
  }

  /** Delete a message for everyone (`DELETE /chat/deleteMessageForEveryone`, JSON body). */
  async deleteForEveryone(
    key: MessageRef,
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const [valid] = messageRefs("key", [key]);
    return await this.call(ROUTE.chat.deleteMessageForEveryone, {
      body: valid,
    }, options);
  }

  /** Edit a sent text (`POST /chat/updateMessage`). */
  async updateMessage(
    key: MessageRef,
    text: string,
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const [valid] = messageRefs("key", [key]);
    check("message update", (problems) => problems.text("text", text, { required: true }));
    const number = valid.remoteJid.endsWith("@s.whatsapp.net")
      ? valid.remoteJid.split("@")[0]
      : valid.remoteJid;
    return await this.call(ROUTE.chat.updateMessage, {
      body: { number, key: valid, text },
    }, options);
  }

  /** Show a presence in a chat for `delay` ms (`POST /chat/sendPresence`). */
  async sendPresence(
    number: string,
    presence: Presence,
    delay = 0,
    options?: CallOptions,
  ): Promise<ApiResponse<{ presence: Presence }>> {
    const body = readBody(SEND_PRESENCE_BODY, { number, delay, presence });
    return await this.call(ROUTE.chat.sendPresence, { body, serverDelayMs: body.delay as number }, options);
  }

  /** Block or unblock a number (`POST /chat/updateBlockStatus`). */
  async updateBlockStatus(
    number: string,
    status: "block" | "unblock",
    options?: CallOptions,
  ): Promise<ApiResponse<{ block: string }>> {
    const body = readBody(BLOCK_STATUS_BODY, { number, status });
    return await this.call(ROUTE.chat.updateBlockStatus, { body }, options);
  }

  /** A contact's profile picture URL (`POST /chat/fetchProfilePictureUrl`; null when none). */
  async fetchProfilePictureUrl(
    number: string,
    options?: CallOptions,
  ): Promise<ApiResponse<{ wuid: string; profilePictureUrl: string | null }>> {
    return await this.call(ROUTE.chat.fetchProfilePictureUrl, {
      body: { number: recipient(number) },
    }, options);
  }

  /** Download received media as base64, up to `http.max_media_response_bytes` (default 64 MiB). */
  async getBase64FromMediaMessage(
    message: { key: { id: string; [key: string]: unknown }; [key: string]: unknown },
    options?: CallOptions & { convertToMp4?: boolean },
  ): Promise<ApiResponse<Record<string, unknown>>> {
    const { convertToMp4, ...call } = options ?? {};
    check("media download", (problems) => {
      problems.messageKey("message.key", isRecord(message) ? message.key : undefined, ["id"]);
      problems.bool("convertToMp4", convertToMp4);
    });
    const body: Record<string, unknown> = { message };
    if (convertToMp4 !== undefined) body.convertToMp4 = convertToMp4;
    return await this.call(ROUTE.chat.getBase64FromMediaMessage, { body, mediaResponse: true }, call);
  }

  /** Stored contacts (`POST /chat/findContacts`). */
  async findContacts(query: PagedQuery = {}, options?: CallOptions): Promise<ApiResponse<ContactRow[]>> {
    return await this.call(ROUTE.chat.findContacts, { body: query }, options);
  }

  /** One page of stored messages (`POST /chat/findMessages`; `page` from 1, `offset` is the page size). */
  async findMessages(
    query: FindMessagesQuery = {},
    options?: CallOptions,
  ): Promise<ApiResponse<FindMessagesResponse>> {
    return await this.call(ROUTE.chat.findMessages, { body: query }, options);
  }

  /** Every stored message matching `query`, page after page (`findMessages` with `page` 1, 2, ...). */
  async *iterateMessages(
    query: FindMessagesQuery = {},
    options?: CallOptions,
  ): AsyncGenerator<MessageRecord> {
    let page = query.page ?? 1;
    const offset = query.offset ?? 50;
    for (;;) {
      const res = await this.findMessages({ ...query, page, offset }, options);
      const data = res.data?.messages;
      const records = Array.isArray(data?.records) ? data.records : [];
      for (const record of records) yield record;
      const pages = typeof data?.pages === "number" ? data.pages : page;
      if (records.length === 0 || page >= pages) return;
      page++;
    }
  }

  /** Every stored message matching `query`, collected into an array (see `iterateMessages`). */
  async findAllMessages(query: FindMessagesQuery = {}, options?: CallOptions): Promise<MessageRecord[]> {
    const out: MessageRecord[] = [];
    for await (const record of this.iterateMessages(query, options)) out.push(record);
    return out;
  }

  /** Delivery/read updates of messages (`POST /chat/findStatusMessage`). */
  async findStatusMessage(
    query: PagedQuery = {},
    options?: CallOptions,
  ): Promise<ApiResponse<Record<string, unknown>[]>> {
    return await this.call(ROUTE.chat.findStatusMessage, { body: query }, options);
  }

  /** Stored chats (`POST /chat/findChats`). */
  async fetchAll(query: FindChatsQuery = {}, options?: CallOptions): Promise<ApiResponse<ChatRow[]>> {
    return await this.call(ROUTE.chat.findChats, { body: query }, options);
  }

  /** One stored chat by JID (`GET /chat/findChatByRemoteJid?remoteJid=`), or null. */
  async findChatByRemoteJid(remoteJid: string, options?: CallOptions): Promise<ApiResponse<ChatRow | null>> {
    return await this.call(ROUTE.chat.findChatByRemoteJid, {
      query: { remoteJid: personJid(recipient(remoteJid, "remoteJid")) },
    }, options);
  }
}
