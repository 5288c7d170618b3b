/** Helpers for the bot tests: a recording gateway stub, payload builders, a bot wired to both. */

import { GatewayService, MemoryState, MemoryStore } from "../../mod.ts";
import type { GatewayStore } from "../../src/store/store.ts";
import type {
  StateEntry,
  StateListEntry,
  StateListOptions,
  StateSetOptions,
  StateStore,
} from "../../src/store/state.ts";
import { Bot, type BotOptions, type Context } from "../../src/bot/mod.ts";

export const INSTANCE = "sales";
export const OWN = "5511900000000@s.whatsapp.net";
export const ANA = "5511999999999@s.whatsapp.net";
export const ANA_LID = "123456789012345@lid";
export const GROUP = "120363000000000000@g.us";

/** One request the stub received. */
export interface SentRequest {
  path: string;
  // deno-lint-ignore no-explicit-any
  body: any;
  idempotencyKey: string | null;
}

/** A gateway stub: answers every send 201 with a fresh message id and records it. */
export class GatewayStub {
  readonly requests: SentRequest[] = [];
  #next = 0;
  /** Answer the next `failures` sends with this status instead. */
  failNext: { status: number; count: number } | undefined;

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const body = text === "" ? undefined : JSON.parse(text);
    if (this.failNext !== undefined && this.failNext.count > 0) {
      this.failNext.count--;
      return Response.json({ status: this.failNext.status, error: "Bad", response: { message: ["down"] } }, {
        status: this.failNext.status,
      });
    }
    this.requests.push({ path: url.pathname, body, idempotencyKey: request.headers.get("idempotency-key") });
    const id = `BOT${++this.#next}`;
    const remoteJid = typeof body?.number === "string" ? body.number : body?.key?.remoteJid ?? "";
    return Response.json({ key: { remoteJid, fromMe: true, id }, status: "PENDING" }, { status: 201 });
  };

  /** The texts sent with `/message/sendText`, in order. */
  texts(): string[] {
    return this.requests.filter((r) => r.path.startsWith("/message/sendText")).map((r) => r.body.text);
  }

  /** Requests to paths starting with `prefix`. */
  to(prefix: string): SentRequest[] {
    return this.requests.filter((r) => r.path.startsWith(prefix));
  }
}

/** A service over the stub, keeping idempotency in `store`. */
export function stubService(stub: GatewayStub, store: GatewayStore, now?: () => number): GatewayService {
  return new GatewayService(
    { server_url: "http://gateway.test", api_key: "k", instance: INSTANCE, store, retry: { max_retries: 0 } },
    { fetch: stub.fetch, now },
  );
}

/** A bot over a stub, with a memory store, no pacing and no signature unless given. */
export function stubBot<C extends Context = Context>(
  options: BotOptions = {},
): { bot: Bot<C>; stub: GatewayStub; store: GatewayStore } {
  const store = options.store ?? new MemoryStore();
  const stub = new GatewayStub();
  const bot = new Bot<C>({
    signature: { scheme: "none" },
    pacing: false,
    service: stubService(stub, store, options.now),
    ...options,
    store,
  });
  return { bot, stub, store };
}

/**
 * Memory state behind a plain `StateStore`: the bot cannot tell it from a shared store (KV, Redis...), so
 * it takes the paths it takes for those (a chat's turn as tickets in the store), in one process.
 */
export class SharedLikeState implements StateStore {
  readonly #inner: MemoryState;
  constructor(now?: () => number) {
    this.#inner = new MemoryState({ now });
  }
  get<T>(namespace: string, key: string): Promise<StateEntry<T> | null> {
    return this.#inner.get<T>(namespace, key);
  }
  set<T>(namespace: string, key: string, value: T, options?: StateSetOptions): Promise<string | null> {
    return this.#inner.set(namespace, key, value, options);
  }
  delete(namespace: string, key: string, options?: { expectedVersion?: string }): Promise<boolean> {
    return this.#inner.delete(namespace, key, options);
  }
  list<T>(namespace: string, options?: StateListOptions): Promise<StateListEntry<T>[]> {
    return this.#inner.list<T>(namespace, options);
  }
}

/** A memory store whose `state` is a {@link SharedLikeState}: the bot's shared-store paths, in one process. */
export function sharedLikeStore(now?: () => number): GatewayStore {
  const store = new MemoryStore({ now });
  const state = new SharedLikeState(now);
  return new Proxy(store, {
    get: (target, name) => {
      if (name === "state") return state;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The two kinds of store the bot orders chats on: memory (in-memory lines) and shared (tickets in the store). */
export const ORDER_STORES: readonly [string, (now?: () => number) => GatewayStore][] = [
  ["memory store", (now) => new MemoryStore({ now })],
  ["shared store", sharedLikeStore],
];

let counter = 0;

/** A `messages.upsert` from Ana (or `from`) with `message` (default a text). */
export function inbound(
  message: Record<string, unknown> | string,
  options: {
    id?: string;
    from?: string;
    fromMe?: boolean;
    group?: string;
    participant?: string;
    extra?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  const body = typeof message === "string" ? { conversation: message } : message;
  const key: Record<string, unknown> = {
    remoteJid: options.group ?? options.from ?? ANA,
    fromMe: options.fromMe ?? false,
    id: options.id ?? `3EB0${++counter}`,
  };
  if (options.participant !== undefined) key.participant = options.participant;
  return {
    event: "messages.upsert",
    instance: INSTANCE,
    sender: OWN,
    data: {
      key,
      pushName: "Ana",
      message: body,
      messageType: Object.keys(body)[0],
      messageTimestamp: 1_760_000_000,
      ...options.extra,
    },
  };
}

/** A promise and the function that resolves it (to hold a handler, or wait for one, without sleeping). */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

/** A fake clock whose sleeps are recorded and move it on at once. */
export function fakeTime() {
  const time = {
    clock: 1_000_000,
    waits: [] as number[],
    now: () => time.clock,
    sleep: (ms: number) => {
      time.waits.push(ms);
      time.clock += ms;
      return Promise.resolve();
    },
  };
  return time;
}
