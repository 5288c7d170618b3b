/**
 * The structured and interactive kinds of `MessagesResource` (location, contact, reaction, poll, template,
 * list, buttons): each reads its short arguments or its request object into one validated send.
 *
 * @module
 */

import {
  type ButtonInput,
  type ListSection,
  SendButtonsMessageDto,
  SendListMessageDto,
} from "../dto/interactive_messages.ts";
import {
  type ContactCard,
  SendContactMessageDto,
  SendLocationMessageDto,
  SendPollMessageDto,
  SendReactionMessageDto,
  SendTemplateMessageDto,
} from "../dto/structured_messages.ts";
import type { RequestInput } from "../dto/request_dto.ts";
import type { CallOptions } from "./resource.ts";
import { ROUTE } from "./routes.ts";
import type { MessageRef } from "./types.ts";
import { type MessageSend, sendOf, type SendOptions, shortForm } from "./message_send.ts";

/** The request object: the short form's fields over its options, or the request as given. */
function requestOf<R>(
  short: boolean,
  fields: () => object,
  options: object | undefined,
  request: unknown,
): R {
  return (short ? shortForm(fields(), options) : request) as R;
}

/** `location(to, latitude, longitude, name?, address?, options?)` or `location(request, callOptions?)`. */
export function locationSend(
  first: string | SendLocationMessageDto | RequestInput<SendLocationMessageDto>,
  latitude?: number | CallOptions,
  longitude?: number,
  name?: string,
  address?: string,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : latitude as CallOptions | undefined;
  const input = requestOf<RequestInput<SendLocationMessageDto>>(
    short,
    () => ({ number: first, latitude, longitude, name, address }),
    options,
    first,
  );
  return sendOf(ROUTE.message.sendLocation, SendLocationMessageDto.from(input), call);
}

/** `contact(to, cards, options?)` or `contact(request, callOptions?)`. */
export function contactSend(
  first: string | SendContactMessageDto | RequestInput<SendContactMessageDto>,
  second?: ContactCard | ContactCard[] | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : second as CallOptions | undefined;
  const input = requestOf<RequestInput<SendContactMessageDto>>(
    short,
    () => ({ number: first, contact: Array.isArray(second) ? second : [second] }),
    options,
    first,
  );
  return sendOf(ROUTE.message.sendContact, SendContactMessageDto.from(input), call);
}

/** `reaction(key, emoji, callOptions?)` or `reaction(request, callOptions?)`; `""` removes the reaction. */
export function reactionSend(
  first: MessageRef | SendReactionMessageDto | RequestInput<SendReactionMessageDto>,
  second?: string | CallOptions,
  options?: CallOptions,
): MessageSend {
  const short = typeof second === "string";
  const input = short ? { key: first, reaction: second } : first;
  const valid = SendReactionMessageDto.from(input as RequestInput<SendReactionMessageDto>);
  const call = short ? options : second as CallOptions | undefined;
  return { ...sendOf(ROUTE.message.sendReaction, valid, call), to: valid.body.key.remoteJid };
}

/** `poll(to, name, values, options?)` or `poll(request, callOptions?)`. */
export function pollSend(
  first: string | SendPollMessageDto | RequestInput<SendPollMessageDto>,
  name?: string | CallOptions,
  values?: string[],
  options?: SendOptions & { selectableCount?: number },
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : name as CallOptions | undefined;
  const input = requestOf<RequestInput<SendPollMessageDto>>(
    short,
    () => ({ number: first, name, values }),
    options,
    first,
  );
  return sendOf(ROUTE.message.sendPoll, SendPollMessageDto.from(input), call);
}

/** `template(to, name, language, components?, options?)` or `template(request, callOptions?)`. */
export function templateSend(
  first: string | SendTemplateMessageDto | RequestInput<SendTemplateMessageDto>,
  name?: string | CallOptions,
  language?: string,
  components?: Record<string, unknown>[],
  options?: { webhookUrl?: string },
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : name as CallOptions | undefined;
  const input = requestOf<RequestInput<SendTemplateMessageDto>>(
    short,
    () => ({ number: first, name, language, components }),
    options,
    first,
  );
  return sendOf(ROUTE.message.sendTemplate, SendTemplateMessageDto.from(input), call);
}

/** The fields of a list message besides its recipient. */
interface ListContent {
  /** Title. */
  title: string;
  /** Text under the title. */
  description?: string;
  /** Footer. */
  footerText: string;
  /** The text of the button that opens the list. */
  buttonText: string;
  /** Sections of rows. */
  sections: ListSection[];
}

/** `list(to, list, options?)` or `list(request, callOptions?)`. */
export function listSend(
  first: string | SendListMessageDto | RequestInput<SendListMessageDto>,
  second?: ListContent | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : second as CallOptions | undefined;
  const input = requestOf<RequestInput<SendListMessageDto>>(
    short,
    () => ({ ...second, number: first }),
    options,
    first,
  );
  return sendOf(ROUTE.message.sendList, SendListMessageDto.from(input), call);
}

/** The fields of a buttons message besides its recipient. */
interface ButtonsContent {
  /** Title. */
  title?: string;
  /** Text under the title. */
  description?: string;
  /** Footer. */
  footer?: string;
  /** An image shown above the buttons. */
  thumbnailUrl?: string;
  /** Up to 3 reply buttons, or other kinds, or one pix button. */
  buttons: ButtonInput[];
}

/** `buttons(to, message, options?)` or `buttons(request, callOptions?)`. */
export function buttonsSend(
  first: string | SendButtonsMessageDto | RequestInput<SendButtonsMessageDto>,
  second?: ButtonsContent | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const short = typeof first === "string";
  const call = short ? shortCall : second as CallOptions | undefined;
  const input = requestOf<RequestInput<SendButtonsMessageDto>>(
    short,
    () => ({ ...second, number: first }),
    options,
    first,
  );
  return sendOf(ROUTE.message.sendButtons, SendButtonsMessageDto.from(input), call);
}
