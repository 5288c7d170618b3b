/**
 * The bot integrations' ten shared routes (contract §2.9), with every integration enabled: an in-memory
 * store per instance that answers like 2.3.6's `base-chatbot.controller.ts` (the Prisma rows, the trigger
 * checks and the 500s its `throw new Error(...)` give). Sessions exist only on the real server (a bot
 * talking to a chat), so `fetchSessions` lists none.
 *
 * @module
 */

import type { BodySpec } from "../../../dto/body_spec.ts";
import {
  BOT_SETTINGS_BODY,
  BOT_STATUS_BODY,
  DIFY_BODY,
  EVOAI_BODY,
  EVOLUTION_BOT_BODY,
  FLOWISE_BODY,
  FLOWISE_SETTINGS_BODY,
  IGNORE_JID_BODY,
  N8N_BODY,
  OPENAI_BODY,
  OPENAI_SETTINGS_BODY,
  TYPEBOT_BODY,
  TYPEBOT_SETTINGS_BODY,
} from "../../../dto/chatbot_bodies.ts";
import type { BotRoutes } from "../../../resources/chatbot.ts";
import { ROUTE } from "../../../resources/routes.ts";
import { schemaOf } from "../body_schema.ts";
import { internalString } from "../errors.ts";
import { route, type RouteContext, type RouteDef } from "../route.ts";
import type { InstanceState } from "../state.ts";
import { checkBody, type Schema } from "../validate.ts";

type Row = Record<string, unknown>;

/** One integration as the server's controller names it, and its bodies. */
export interface BotKind {
  /** `integrationName` in the server's messages (`Typebot`, `Openai`, ...). */
  name: string;
  /** The settings column that holds the fallback bot. */
  fallback: string;
  /** The fields the integration stores besides the shared ones. */
  own: readonly string[];
  bot: Schema;
  settings: Schema;
  /** Rules the integration's controller adds before creating (openai's bot types). */
  check?: (body: Row) => void;
}

const kind = (
  name: string,
  fallback: string,
  bot: BodySpec,
  settings: BodySpec,
  own: readonly string[],
  check?: (body: Row) => void,
): BotKind => ({ name, fallback, own, bot: schemaOf(bot), settings: schemaOf(settings), check });

function openaiRules(body: Row): void {
  if (body.botType === "assistant" && !body.assistantId) throw internalString("Assistant ID is required");
  if (body.botType === "chatCompletion") {
    if (!body.model) throw internalString("Model is required");
    if (!body.maxTokens) throw internalString("Max tokens is required");
  }
}

const BASE_FIELDS = ["enabled", "description", "expire", "keywordFinish", "delayMessage", "unknownMessage"];
const FLAG_FIELDS = ["listeningFromMe", "stopBotFromMe", "keepOpen", "debounceTime"];
const TAIL_FIELDS = [
  "ignoreJids",
  "splitMessages",
  "timePerChar",
  "triggerType",
  "triggerOperator",
  "triggerValue",
];
const SETTING_FIELDS = [
  ...BASE_FIELDS.slice(2),
  ...FLAG_FIELDS,
  "ignoreJids",
  "splitMessages",
  "timePerChar",
];
/** The columns' defaults in the server's Prisma schema (the rest default to null). */
const DEFAULTS: Row = {
  expire: 0,
  listeningFromMe: false,
  stopBotFromMe: false,
  keepOpen: false,
  splitMessages: false,
  timePerChar: 0,
};

/** The seven bot integrations by route group. */
export const BOT_KINDS: Readonly<Record<string, BotKind>> = {
  evolutionBot: kind("EvolutionBot", "botIdFallback", EVOLUTION_BOT_BODY, BOT_SETTINGS_BODY, [
    "apiUrl",
    "apiKey",
  ]),
  typebot: kind("Typebot", "typebotIdFallback", TYPEBOT_BODY, TYPEBOT_SETTINGS_BODY, ["url", "typebot"]),
  openai: kind("Openai", "openaiIdFallback", OPENAI_BODY, OPENAI_SETTINGS_BODY, [
    "openaiCredsId",
    "botType",
    "assistantId",
    "functionUrl",
    "model",
    "systemMessages",
    "assistantMessages",
    "userMessages",
    "maxTokens",
  ], openaiRules),
  dify: kind("Dify", "difyIdFallback", DIFY_BODY, BOT_SETTINGS_BODY, ["botType", "apiUrl", "apiKey"]),
  flowise: kind("Flowise", "flowiseIdFallback", FLOWISE_BODY, FLOWISE_SETTINGS_BODY, ["apiUrl", "apiKey"]),
  n8n: kind("N8n", "botIdFallback", N8N_BODY, BOT_SETTINGS_BODY, [
    "webhookUrl",
    "basicAuthUser",
    "basicAuthPass",
  ]),
  evoai: kind("Evoai", "evoaiIdFallback", EVOAI_BODY, BOT_SETTINGS_BODY, ["agentUrl", "apiKey"]),
};

/** One instance's rows of one integration. */
export interface BotStore {
  bots: Row[];
  settings: Row | null;
}

const stores = new WeakMap<InstanceState, Map<string, BotStore>>();

/** The instance's store of an integration (created empty on first use). */
export function botStore(instance: InstanceState, group: string): BotStore {
  let byGroup = stores.get(instance);
  if (byGroup === undefined) stores.set(instance, byGroup = new Map());
  let store = byGroup.get(group);
  if (store === undefined) byGroup.set(group, store = { bots: [], settings: null });
  return store;
}

const nullish = (value: unknown) => value === undefined || value === null;

function pick(body: Row, names: readonly string[]): Row {
  const out: Row = {};
  for (const name of names) out[name] = nullish(body[name]) ? DEFAULTS[name] ?? null : body[name];
  return out;
}

/** The trigger checks of `createBot` (outside its try: the message comes out as is). */
function checkTriggers(store: BotStore, bot: BotKind, body: Row, except?: string): void {
  const others = store.bots.filter((row) => row.id !== except);
  if (body.triggerType === "all" && others.some((row) => row.enabled && row.triggerType === "all")) {
    throw internalString(
      `You already have a ${bot.name} with an "All" trigger, you cannot have more bots while it is active`,
    );
  }
  if (body.triggerType === "keyword") {
    if (!body.triggerOperator || !body.triggerValue) {
      throw internalString("Trigger operator and value are required");
    }
    const same = (row: Row) =>
      row.triggerOperator === body.triggerOperator && row.triggerValue === body.triggerValue;
    if (others.some(same)) throw internalString("Trigger already exists");
  }
  if (body.triggerType === "advanced") {
    if (!body.triggerValue) throw internalString("Trigger value is required");
    if (others.some((row) => row.triggerValue === body.triggerValue)) {
      throw internalString("Trigger already exists");
    }
  }
}

function saveSettings(ctx: RouteContext, store: BotStore, bot: BotKind, body: Row): Row {
  const now = ctx.core.isoNow();
  const given: Row = {};
  // The shared settings, and the integration's own (openai's credentials and speech to text).
  const names = new Set([...SETTING_FIELDS, ...Object.keys(bot.settings.properties ?? {})]);
  for (const name of names) if (body[name] !== undefined) given[name] = body[name];
  if (body.fallbackId !== undefined) given[bot.fallback] = body.fallbackId;
  store.settings = store.settings ? { ...store.settings, ...given, updatedAt: now } : {
    id: crypto.randomUUID(),
    ...pick(body, SETTING_FIELDS),
    [bot.fallback]: body.fallbackId ?? null,
    ...given,
    createdAt: now,
    updatedAt: now,
    instanceId: ctx.instance.id,
  };
  return store.settings;
}

function create(group: string, bot: BotKind) {
  return (ctx: RouteContext): unknown => {
    checkBody(ctx.body, bot.bot);
    const store = botStore(ctx.instance, group);
    bot.check?.(ctx.body);
    if (!store.settings) saveSettings(ctx, store, bot, ctx.body);
    checkTriggers(store, bot, ctx.body);
    const now = ctx.core.isoNow();
    const row = {
      id: crypto.randomUUID(),
      ...pick(ctx.body, [...BASE_FIELDS, ...bot.own, ...FLAG_FIELDS, ...TAIL_FIELDS]),
      createdAt: now,
      updatedAt: now,
      instanceId: ctx.instance.id,
    };
    store.bots.push(row);
    return { ...row };
  };
}

function update(group: string, bot: BotKind) {
  return (ctx: RouteContext): unknown => {
    checkBody(ctx.body, bot.bot);
    const store = botStore(ctx.instance, group);
    const index = store.bots.findIndex((row) => row.id === ctx.id);
    // updateBot runs inside one try: every failure is reported as the same 500.
    try {
      if (index < 0) throw new Error("not found");
      bot.check?.(ctx.body);
      checkTriggers(store, bot, ctx.body, ctx.id);
    } catch {
      throw internalString(`Error updating ${bot.name}`);
    }
    const previous = store.bots[index];
    const fields = [...BASE_FIELDS, ...bot.own, ...FLAG_FIELDS, ...TAIL_FIELDS];
    const changes: Row = {};
    for (const name of fields) if (ctx.body[name] !== undefined) changes[name] = ctx.body[name];
    store.bots[index] = { ...previous, ...changes, updatedAt: ctx.core.isoNow() };
    return { ...store.bots[index] };
  };
}

function remove(group: string, bot: BotKind) {
  return (ctx: RouteContext): unknown => {
    const store = botStore(ctx.instance, group);
    const index = store.bots.findIndex((row) => row.id === ctx.id);
    if (index < 0) throw internalString(`Error deleting ${bot.name} bot`);
    store.bots.splice(index, 1);
    return { bot: { id: ctx.id } };
  };
}

const FETCH_DEFAULTS: Row = {
  expire: 300,
  keywordFinish: "bye",
  delayMessage: 1000,
  unknownMessage: "Sorry, I dont understand",
  listeningFromMe: true,
  stopBotFromMe: true,
  keepOpen: false,
  debounceTime: 1,
  ignoreJids: [],
  splitMessages: false,
  timePerChar: 0,
  fallbackId: "",
  fallback: null,
};

function changeStatus(ctx: RouteContext): unknown {
  checkBody(ctx.body, schemaOf(BOT_STATUS_BODY));
  const { remoteJid, status } = ctx.body;
  if (status === "delete") return { bot: { remoteJid, status } };
  const instance = { instanceName: ctx.instanceName, ...ctx.query };
  if (status === "closed") return { bot: { ...instance, bot: { remoteJid, status } } };
  return { bot: { ...instance, bot: { remoteJid, status, session: { count: 0 } } } };
}

function ignoreJid(group: string) {
  return (ctx: RouteContext): unknown => {
    checkBody(ctx.body, schemaOf(IGNORE_JID_BODY));
    const store = botStore(ctx.instance, group);
    if (!store.settings) throw internalString("Error setting default settings");
    const list = Array.isArray(store.settings.ignoreJids) ? [...store.settings.ignoreJids as string[]] : [];
    const jid = String(ctx.body.remoteJid);
    if (ctx.body.action === "add" && list.includes(jid)) return { ignoreJids: list };
    const next = ctx.body.action === "add" ? [...list, jid] : list.filter((item) => item !== jid);
    store.settings = { ...store.settings, ignoreJids: next, updatedAt: ctx.core.isoNow() };
    return { ignoreJids: next };
  };
}

/** The ten shared routes of one integration. */
export function botRoutes(group: string, rows: BotRoutes): RouteDef[] {
  const bot = BOT_KINDS[group];
  const store = (ctx: RouteContext) => botStore(ctx.instance, group);
  return [
    route(rows.create, create(group, bot)),
    route(rows.find, (ctx) => store(ctx).bots.map((row) => ({ ...row }))),
    route(rows.fetch, (ctx) => {
      const row = store(ctx).bots.find((item) => item.id === ctx.id);
      return row ? { ...row } : null;
    }),
    route(rows.update, update(group, bot)),
    route(rows.delete, remove(group, bot)),
    route(rows.settings, (ctx) => {
      checkBody(ctx.body, bot.settings);
      // Openai's controller writes its fallback column beside a relation connect, which Prisma refuses.
      if (group === "openai" && ctx.body.fallbackId !== undefined) {
        throw internalString("Error setting default settings");
      }
      const settings = saveSettings(ctx, store(ctx), bot, ctx.body);
      return { ...settings, fallbackId: settings[bot.fallback] };
    }),
    route(rows.fetchSettings, (ctx) => {
      const settings = store(ctx).settings;
      if (!settings) return { ...FETCH_DEFAULTS };
      return { ...settings, Fallback: null, fallbackId: settings[bot.fallback], fallback: null };
    }),
    route(rows.changeStatus, changeStatus),
    route(rows.fetchSessions, () => []),
    route(rows.ignoreJid, ignoreJid(group)),
  ];
}

/** The bot integrations' shared routes, in the server's mount order (typebot's and openai's extras apart). */
export const CHATBOT_ROUTES: readonly RouteDef[] = [
  ...botRoutes("evolutionBot", ROUTE.evolutionBot),
  ...botRoutes("typebot", ROUTE.typebot),
  ...botRoutes("openai", ROUTE.openai),
  ...botRoutes("dify", ROUTE.dify),
  ...botRoutes("flowise", ROUTE.flowise),
  ...botRoutes("n8n", ROUTE.n8n),
  ...botRoutes("evoai", ROUTE.evoai),
];
