/**
 * The structured and interactive kinds of `MessagesResource`, each read into one validated send.
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
import { ROUTE, type RouteEntry } from "./routes.ts";
import type { MessageRef } from "./types.ts";
import { type MessageSend, sendOf, type SendOptions, shortForm } from "./message_send.ts";

/**
 * The send of a kind whose short form starts with the recipient (`first` a string): its `fields` over its
 * `options`, or the request object `first` as given; validated by `from`.
 */
function kindSend<R>(
  route: RouteEntry,
  from: (input: R) => { readonly body: object },
  first: unknown,
  fields: () => object,
  options: object | undefined,
  call: CallOptions | undefined,
): MessageSend {
  const input = typeof first === "string" ? shortForm(fields(), options) : first;
  return sendOf(route, from(input as R), call);
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
  const call = typeof first === "string" ? shortCall : latitude as CallOptions | undefined;
  const fields = () => ({ number: first, latitude, longitude, name, address });
  return kindSend(ROUTE.message.sendLocation, SendLocationMessageDto.from, first, fields, options, call);
}

/** `contact(to, cards, options?)` or `contact(request, callOptions?)`. */
export function contactSend(
  first: string | SendContactMessageDto | RequestInput<SendContactMessageDto>,
  second?: ContactCard | ContactCard[] | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
): MessageSend {
  const call = typeof first === "string" ? shortCall : second as CallOptions | undefined;
  const fields = () => ({ number: first, contact: Array.isArray(second) ? second : [second] });
  return kindSend(ROUTE.message.sendContact, SendContactMessageDto.from, first, fields, options, call);
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
  const call = typeof first === "string" ? shortCall : name as CallOptions | undefined;
  const fields = () => ({ number: first, name, values });
  return kindSend(ROUTE.message.sendPoll, SendPollMessageDto.from, first, fields, options, call);
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
  const call = typeof first === "string" ? shortCall : name as CallOptions | undefined;
  const fields = () => ({ number: first, name, language, components });
  return kindSend(ROUTE.message.sendTemplate, SendTemplateMessageDto.from, first, fields, options, call);
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

/** The arguments of `list` and `buttons`: `(to, content, options?, call?)` or `(request, callOptions?)`. */
type ContentArgs<D, C> = [
  first: string | D | RequestInput<D>,
  second?: C | CallOptions,
  options?: SendOptions,
  shortCall?: CallOptions,
];

/** The send of a kind whose short form is the recipient and the request's other fields in one object. */
function contentSend<D, C>(
  route: RouteEntry,
  from: (input: RequestInput<D>) => { readonly body: object },
): (...args: ContentArgs<D, C>) => MessageSend {
  return (first, second, options, shortCall) => {
    const call = typeof first === "string" ? shortCall : second as CallOptions | undefined;
    return kindSend(route, from, first, () => ({ ...second, number: first }), options, call);
  };
}

/** `list(to, list, options?, call?)` or `list(request, callOptions?)`. */
export const listSend: (...args: ContentArgs<SendListMessageDto, ListContent>) => MessageSend = contentSend(
  ROUTE.message.sendList,
  SendListMessageDto.from,
);

/** `buttons(to, message, options?, call?)` or `buttons(request, callOptions?)`. */
export const buttonsSend: (...args: ContentArgs<SendButtonsMessageDto, ButtonsContent>) => MessageSend =
  contentSend(ROUTE.message.sendButtons, SendButtonsMessageDto.from);
