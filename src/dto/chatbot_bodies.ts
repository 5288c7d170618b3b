/**
 * The request bodies of the bot integrations (`/typebot`, `/openai`, `/dify`, `/flowise`, `/evolutionBot`,
 * `/n8n`, `/evoai`; contract §2.9), declared once from the server's `validate/*.schema.ts` and the fields
 * its controllers read (`base-chatbot.dto.ts`): what the resources validate before sending and what the
 * simulator checks, like every other body (`src/dto/body_spec.ts`).
 *
 * @module
 */

import type { BodySpec, FieldSpec } from "./body_spec.ts";
import { personJid, type Problems } from "./validate.ts";
import { suggestKey } from "../option_keys.ts";

/** When a bot answers: every message, a keyword, an advanced expression, or never by itself. */
export const TRIGGER_TYPES = ["all", "keyword", "none", "advanced"] as const;
/** How a keyword trigger compares. */
export const TRIGGER_OPERATORS = ["equals", "contains", "startsWith", "endsWith", "regex"] as const;
/** The session states `changeStatus` sets (`delete` removes the sessions). */
export const SESSION_STATUSES = ["opened", "closed", "paused", "delete"] as const;

/** A list of strings (`ignoreJids`, `systemMessages`, ...). */
export function readStringList(problems: Problems, field: string, value: unknown): string[] | undefined {
  const list = problems.array(field, value);
  list?.forEach((item, index) => {
    if (typeof item !== "string") problems.add(`${field}[${index}] must be a string`);
  });
  return list as string[] | undefined;
}

/** A chat, as the server stores it in bot sessions and ignore lists: a number becomes a person's JID. */
export function readChatJid(problems: Problems, field: string, value: unknown): string | undefined {
  const chat = problems.recipient(field, value);
  return chat === undefined ? undefined : personJid(chat);
}

/** The chat of a status change, an ignore-list change or a typebot start. */
const CHAT_FIELD: FieldSpec = { type: "string", required: true, read: readChatJid };

const STRING_LIST: FieldSpec = {
  type: "array",
  read: readStringList,
  server: { type: "array", items: { type: "string" } },
};

/**
 * A body rule that refuses keys the declaration does not list, naming the closest field: a misspelt key is
 * an error, never dropped silently.
 */
export function refuseUnknownKeys(
  fields: Readonly<Record<string, FieldSpec>>,
  renamed: Readonly<Record<string, string>> = {},
): (problems: Problems, read: Record<string, unknown>, input: Record<string, unknown>) => void {
  const keys = Object.fromEntries(Object.keys(fields).map((name) => [name, true as const]));
  return (problems, _read, input) => {
    for (const key of Object.keys(input)) {
      if (Object.hasOwn(fields, key) || input[key] === undefined) continue;
      if (Object.hasOwn(renamed, key)) {
        problems.add(`${key} is ignored by the server; use ${renamed[key]}`);
        continue;
      }
      const guess = suggestKey(key, keys);
      problems.add(`${key} is not a field of this body${guess ? `; did you mean "${guess}"?` : ""}`);
    }
  };
}

/** A declaration that refuses unknown keys, plus an optional rule across fields. */
function body(
  what: string,
  fields: Record<string, FieldSpec>,
  rule?: (problems: Problems, body: Record<string, unknown>) => void,
  renamed?: Record<string, string>,
): BodySpec {
  const unknown = refuseUnknownKeys(fields, renamed);
  return {
    what,
    requiredNotEmpty: true,
    fields,
    check: (problems, read, input) => {
      unknown(problems, read, input);
      rule?.(problems, read);
    },
  };
}

/** The session settings every bot and every settings body carries (the server's order). */
const SESSION_FIELDS: Record<string, FieldSpec> = {
  expire: { type: "integer", min: 0 },
  keywordFinish: { type: "string" },
  delayMessage: { type: "integer", min: 0 },
  unknownMessage: { type: "string" },
  listeningFromMe: { type: "boolean" },
  stopBotFromMe: { type: "boolean" },
  keepOpen: { type: "boolean" },
  debounceTime: { type: "integer", min: 0 },
};

const TRIGGER_FIELDS: Record<string, FieldSpec> = {
  triggerType: { type: "string", required: true, values: TRIGGER_TYPES },
  triggerOperator: { type: "string", values: TRIGGER_OPERATORS },
  triggerValue: { type: "string" },
};

/** The server answers 500 for these (its controllers check them after the schema); refused before sending. */
function triggerRule(problems: Problems, read: Record<string, unknown>): void {
  if (read.triggerType === "keyword" && (read.triggerOperator === undefined || !read.triggerValue)) {
    problems.add('triggerType "keyword" needs triggerOperator and triggerValue');
  }
  if (read.triggerType === "advanced" && !read.triggerValue) {
    problems.add('triggerType "advanced" needs triggerValue');
  }
}

/** A required field; a reader of its own (a list) is told so, since readers see only the value. */
function requiredField(field: FieldSpec): FieldSpec {
  const read = field.read;
  if (read === undefined) return { ...field, required: true };
  return {
    ...field,
    required: true,
    read: (problems, name, value) => {
      if (value !== undefined && value !== null) return read(problems, name, value);
      problems.add(`${name} is required`);
      return undefined;
    },
  };
}

/** The server's schema does not list these; its controllers read them. */
const hidden = (field: FieldSpec): FieldSpec => ({ ...field, server: false });

/**
 * A bot's body (`create`, `update`): `enabled` (default true), `description`, the integration's own fields,
 * the trigger, the session settings, `ignoreJids`, and the message splitting the server reads.
 */
function botBody(
  what: string,
  own: Record<string, FieldSpec>,
  options: {
    /** Shared fields the integration's schema does not list (its controller reads them). */
    unlisted?: readonly string[];
    /** The integration's own rule across fields. */
    rule?: (problems: Problems, body: Record<string, unknown>) => void;
    /** Schema fields the controller reads under another name: refused, naming the one it reads. */
    renamed?: Record<string, string>;
  } = {},
): BodySpec {
  const { unlisted = [], rule, renamed } = options;
  const common: Record<string, FieldSpec> = {
    ...TRIGGER_FIELDS,
    ...SESSION_FIELDS,
    ignoreJids: STRING_LIST,
    splitMessages: { type: "boolean" },
    timePerChar: { type: "integer", min: 0 },
  };
  for (const name of unlisted) common[name] = hidden(common[name]);
  return body(what, {
    enabled: { type: "boolean", required: true, default: true },
    description: { type: "string" },
    ...own,
    ...common,
  }, (problems, read) => {
    triggerRule(problems, read);
    rule?.(problems, read);
  }, renamed);
}

/** A settings body: the session settings, the fields the integration requires, and `fallbackId`. */
function settingsBody(
  what: string,
  required: readonly string[],
  options: {
    before?: Record<string, FieldSpec>;
    after?: Record<string, FieldSpec>;
    unlisted?: string[];
    /** Why the integration takes no `fallbackId`. */
    noFallback?: string;
  } = {},
): BodySpec {
  const fields: Record<string, FieldSpec> = {
    ...options.before,
    ...SESSION_FIELDS,
    ...options.after,
    ignoreJids: STRING_LIST,
    splitMessages: { type: "boolean" },
    timePerChar: { type: "integer", min: 0 },
    // The server's schemas list `<name>IdFallback`, but every controller reads `fallbackId`.
    fallbackId: hidden({ type: "string" }),
  };
  for (const name of options.unlisted ?? []) fields[name] = hidden(fields[name]);
  for (const name of required) fields[name] = requiredField(fields[name]);
  const noFallback = options.noFallback;
  if (noFallback === undefined) return body(what, fields);
  return body(what, fields, (problems, read) => {
    if (read.fallbackId !== undefined) problems.add(`fallbackId: ${noFallback}`);
  });
}

const ELEVEN = [
  "expire",
  "keywordFinish",
  "delayMessage",
  "unknownMessage",
  "listeningFromMe",
  "stopBotFromMe",
  "keepOpen",
  "debounceTime",
  "ignoreJids",
  "splitMessages",
  "timePerChar",
];

/** `/typebot/create` and `/typebot/update`. */
export const TYPEBOT_BODY: BodySpec = botBody("typebot", {
  url: { type: "string", required: true },
  typebot: { type: "string", required: true },
}, { unlisted: ["keepOpen", "debounceTime", "splitMessages", "timePerChar"] });

/** What openai's controller refuses with a 500 after the schema. */
function openaiRule(problems: Problems, read: Record<string, unknown>): void {
  if (read.botType === "assistant" && !read.assistantId) {
    problems.add('botType "assistant" needs assistantId');
  }
  if (read.botType === "chatCompletion" && (!read.model || read.maxTokens === undefined)) {
    problems.add('botType "chatCompletion" needs model and maxTokens');
  }
}

/** `/openai/create` and `/openai/update`; a chat-completion bot needs `model` and `maxTokens`. */
export const OPENAI_BODY: BodySpec = botBody(
  "OpenAI bot",
  {
    openaiCredsId: { type: "string", required: true },
    botType: { type: "string", required: true, values: ["assistant", "chatCompletion"] },
    assistantId: { type: "string" },
    functionUrl: { type: "string" },
    model: { type: "string" },
    systemMessages: STRING_LIST,
    assistantMessages: STRING_LIST,
    userMessages: STRING_LIST,
    maxTokens: { type: "integer", min: 1 },
  },
  { unlisted: ["splitMessages", "timePerChar"], rule: openaiRule },
);

/** `/dify/create` and `/dify/update`. */
export const DIFY_BODY: BodySpec = botBody("Dify bot", {
  botType: { type: "string", required: true, values: ["chatBot", "textGenerator", "agent", "workflow"] },
  apiUrl: { type: "string" },
  apiKey: { type: "string" },
});

/** `/flowise/create` and `/flowise/update`. */
export const FLOWISE_BODY: BodySpec = botBody("Flowise bot", {
  apiUrl: { type: "string", required: true },
  apiKey: { type: "string" },
});

/** `/evolutionBot/create` and `/evolutionBot/update`. */
export const EVOLUTION_BOT_BODY: BodySpec = botBody("Evolution bot", {
  apiUrl: { type: "string", required: true },
  apiKey: { type: "string" },
});

/**
 * `/n8n/create` and `/n8n/update`. The server's schema lists `basicAuthPassword`, but its controller stores
 * `basicAuthPass` (and drops the other): the library sends `basicAuthPass` and refuses `basicAuthPassword`.
 */
export const N8N_BODY: BodySpec = botBody("n8n bot", {
  webhookUrl: { type: "string", required: true },
  basicAuthUser: { type: "string" },
  basicAuthPass: hidden({ type: "string" }),
}, { renamed: { basicAuthPassword: "basicAuthPass" } });

/** `/evoai/create` and `/evoai/update`. */
export const EVOAI_BODY: BodySpec = botBody("EvoAI bot", {
  agentUrl: { type: "string", required: true },
  apiKey: { type: "string" },
});

const SIX = ELEVEN.slice(0, 6);

/** `/typebot/settings` (the server's schema requires the first six session settings). */
export const TYPEBOT_SETTINGS_BODY: BodySpec = settingsBody("typebot settings", SIX, {
  unlisted: ["splitMessages", "timePerChar"],
});
/** `/openai/settings`. */
export const OPENAI_SETTINGS_BODY: BodySpec = settingsBody("OpenAI settings", [
  "openaiCredsId",
  ...ELEVEN.slice(0, 9),
], {
  before: { openaiCredsId: { type: "string" } },
  after: { speechToText: { type: "boolean" } },
  unlisted: ["splitMessages", "timePerChar"],
  // Its controller writes the fallback column beside a relation connect, which Prisma refuses.
  noFallback: "the server (2.3.6) cannot store an OpenAI fallback bot: it answers 500 to any fallbackId",
});
/** `/dify/settings`, `/evolutionBot/settings`, `/n8n/settings` and `/evoai/settings`. */
export const BOT_SETTINGS_BODY: BodySpec = settingsBody("bot settings", ELEVEN);
/** `/flowise/settings` (the server's schema does not require the message splitting). */
export const FLOWISE_SETTINGS_BODY: BodySpec = settingsBody("Flowise settings", ELEVEN.slice(0, 9));

/** `/<bot>/changeStatus`: a chat's session state. */
export const BOT_STATUS_BODY: BodySpec = body("session status", {
  remoteJid: CHAT_FIELD,
  status: { type: "string", required: true, values: SESSION_STATUSES },
});

/** `/<bot>/ignoreJid`: add a chat to the ignore list, or remove it. */
export const IGNORE_JID_BODY: BodySpec = body("ignore list change", {
  remoteJid: CHAT_FIELD,
  action: { type: "string", required: true, values: ["add", "remove"] },
});

/** `/typebot/start`: start a flow for a chat (`variables` and `startSession` are read, not listed). */
export const TYPEBOT_START_BODY: BodySpec = body("typebot start", {
  remoteJid: CHAT_FIELD,
  url: { type: "string", required: true },
  typebot: { type: "string", required: true },
  startSession: hidden({ type: "boolean" }),
  variables: hidden({ type: "array", objectItems: true }),
});

/** `/openai/creds`: an OpenAI API key stored under a name. */
export const OPENAI_CREDS_BODY: BodySpec = body("OpenAI credentials", {
  name: { type: "string", required: true },
  apiKey: { type: "string", required: true },
});
