/**
 * The shapes the bot integrations share: what `create`, `update` and `settings` take, and the rows answered.
 *
 * @module
 */

/** When a bot answers: every message, a keyword, an advanced expression, or only when started. */
export type TriggerType = "all" | "keyword" | "none" | "advanced";
/** How a keyword trigger compares. */
export type TriggerOperator = "equals" | "contains" | "startsWith" | "endsWith" | "regex";
/** A chat's bot session state, as `changeStatus` sets it (`delete` removes the chat's sessions). */
export type SessionStatus = "opened" | "closed" | "paused" | "delete";

/** The session settings a bot and the integration's default settings share. */
export interface BotSessionSettings {
  /** Minutes of silence after which a session ends (0: never). */
  expire?: number;
  /** A message that ends the session. */
  keywordFinish?: string;
  /** Typing delay before each answer, in ms. */
  delayMessage?: number;
  /** Answer to a message the bot cannot handle. */
  unknownMessage?: string;
  /** Whether the instance's own messages reach the bot. */
  listeningFromMe?: boolean;
  /** Whether a message sent by the instance's owner pauses the bot. */
  stopBotFromMe?: boolean;
  /** Keep a closed session instead of deleting it. */
  keepOpen?: boolean;
  /** Seconds to gather a burst of messages into one. */
  debounceTime?: number;
  /** Chats the bot never answers (JIDs). */
  ignoreJids?: string[];
  /** Split long answers into several messages. */
  splitMessages?: boolean;
  /** With `splitMessages`: typing time per character, in ms. */
  timePerChar?: number;
}

/** What every bot's `create` and `update` take besides the integration's own fields. */
export interface BotInput extends BotSessionSettings {
  /** Default true. */
  enabled?: boolean;
  /** A name for people. */
  description?: string;
  /** When the bot answers. */
  triggerType: TriggerType;
  /** With `keyword`: how the message is compared (required then). */
  triggerOperator?: TriggerOperator;
  /** With `keyword` or `advanced`: the keyword or expression (required then). */
  triggerValue?: string;
}

/** A bot as the server stores it: the input's fields (null when unset), its id and timestamps. */
export type BotRow<T extends BotInput = BotInput> =
  & { [K in keyof Required<T>]: T[K] | null }
  & {
    /** The bot's id (`fetch`, `update`, `delete`, `fetchSessions` take it). */
    id: string;
    /** The instance's id. */
    instanceId: string;
    /** ISO timestamp. */
    createdAt: string;
    /** ISO timestamp. */
    updatedAt: string;
  };

/** What an integration's `setSettings` takes: the defaults for new bots, and the fallback bot. */
export interface BotSettingsInput extends BotSessionSettings {
  /** The bot that answers when no trigger matches. */
  fallbackId?: string;
}

/** The integration's settings as the server answers them (`fallbackId` is the fallback bot's id). */
export type BotSettingsRow = { [K in keyof Required<BotSettingsInput>]: BotSettingsInput[K] | null } & {
  /** Other columns (`id`, `instanceId`, the integration's own fallback column, `fallback`, ...). */
  [key: string]: unknown;
};

/** One chat's session with a bot (`fetchSessions`). */
export interface BotSession {
  /** Session id. */
  id: string;
  /** The session id the bot's service gave. */
  sessionId: string;
  /** The chat. */
  remoteJid: string;
  /** The contact's name. */
  pushName: string | null;
  /** Its state. */
  status: Exclude<SessionStatus, "delete">;
  /** Whether the bot waits for the user's answer. */
  awaitUser: boolean;
  /** The bot's id. */
  botId: string | null;
  /** The integration (`typebot`, `openai`, `dify`, ...). */
  type: string | null;
  /** Other columns (`context`, `parameters`, timestamps, `instanceId`). */
  [key: string]: unknown;
}

/** What `changeStatus` answers: the chat and its new state (the server adds the instance's name). */
export interface ChangeStatusResponse {
  /** The change as the server reports it. */
  bot: { remoteJid?: string; status?: SessionStatus; instanceName?: string; bot?: Record<string, unknown> };
}

/** What `delete` answers. */
export interface DeleteBotResponse {
  /** The deleted bot's id. */
  bot: { id: string };
}

/** What `ignoreJid` answers: the ignore list after the change. */
export interface IgnoreJidsResponse {
  /** The chats the integration's bots ignore. */
  ignoreJids: string[];
}
