/**
 * The parts of the Cloudflare Workers bindings this entry point uses, declared here so that it needs no
 * types package and loads on Deno too. The real binding objects (`env.DB`, `env.COORDINATOR`, `env.QUEUE`,
 * a queue handler's batch) satisfy them; so does `@cloudflare/workers-types`' declaration of each.
 *
 * @module
 */

/** The result of a D1 statement: its rows (for queries) and how many rows it changed. */
export interface D1Result<T = Record<string, unknown>> {
  /** Rows returned (empty for a write without `RETURNING`). */
  results: T[];
  /** Whether the statement ran. */
  success: boolean;
  /** Execution details; `changes` is the number of rows written. */
  meta: { changes?: number; [name: string]: unknown };
}

/** A D1 statement, bound or not. */
export interface D1PreparedStatement {
  /** Bind the `?` parameters in order. */
  bind(...values: unknown[]): D1PreparedStatement;
  /** Run it and return the rows as objects. */
  all<T = Record<string, unknown>>(): Promise<D1Result<T>>;
  /** Run it (a write). */
  run<T = Record<string, unknown>>(): Promise<D1Result<T>>;
}

/** A D1 database binding (`[[d1_databases]]` in wrangler.toml). */
export interface D1Database {
  /** Prepare one statement. */
  prepare(query: string): D1PreparedStatement;
  /** Run statements in one transaction: all of them apply, or none. */
  batch<T = Record<string, unknown>>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]>;
}

/** The id of a Durable Object. */
export interface DurableObjectId {
  /** The id as hex. */
  toString(): string;
}

/** A stub that sends requests to one Durable Object. */
export interface DurableObjectStub {
  /** Send a request to the object's `fetch` method. */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
}

/** A Durable Object namespace binding (`[[durable_objects.bindings]]` in wrangler.toml). */
export interface DurableObjectNamespace {
  /** The id of the object called `name` (the same name is the same object, everywhere). */
  idFromName(name: string): DurableObjectId;
  /** A stub for the object with this id. */
  get(id: DurableObjectId): DurableObjectStub;
}

/** A cursor over the rows of a Durable Object SQL statement. */
export interface SqlStorageCursor<T = Record<string, unknown>> {
  /** Every row. */
  toArray(): T[];
  /** Rows written by the statement. */
  readonly rowsWritten: number;
}

/** A SQLite-backed Durable Object's synchronous SQL API (`ctx.storage.sql`). */
export interface SqlStorage {
  /** Run one statement with its `?` parameters. */
  exec<T = Record<string, unknown>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T>;
}

/** The storage of a Durable Object. */
export interface DurableObjectStorage {
  /** The SQL API (SQLite-backed objects only: `new_sqlite_classes` in the migration). */
  readonly sql?: SqlStorage;
  /** When the alarm is set to run (epoch ms), or null. */
  getAlarm(): Promise<number | null>;
  /** Run the object's `alarm()` at this time (epoch ms). */
  setAlarm(scheduledTime: number | Date): Promise<void>;
}

/** What the runtime gives a Durable Object's constructor as its first argument. */
export interface DurableObjectState {
  /** The object's own storage. */
  readonly storage: DurableObjectStorage;
}

/** Options of {@link Queue.send}. */
export interface QueueSendOptions {
  /** Deliver after this many seconds. */
  delaySeconds?: number;
  /** How the body is serialized (default `v8`, which keeps a `Uint8Array`). */
  contentType?: "json" | "text" | "bytes" | "v8";
}

/** A Cloudflare Queue producer binding (`[[queues.producers]]` in wrangler.toml). */
export interface Queue<Body = unknown> {
  /** Put one message on the queue. */
  send(body: Body, options?: QueueSendOptions): Promise<void>;
}

/** One message of a queue batch. */
export interface Message<Body = unknown> {
  /** The message id. */
  readonly id: string;
  /** When it was sent. */
  readonly timestamp: Date;
  /** The body as sent. */
  readonly body: Body;
  /** How many times it was delivered, this time included (1 for the first delivery). */
  readonly attempts: number;
  /** Done: do not deliver it again. */
  ack(): void;
  /** Deliver it again (after `delaySeconds`); after the consumer's `max_retries` it goes to the dead-letter queue. */
  retry(options?: { delaySeconds?: number }): void;
}

/**
 * What a Worker's `queue()` handler receives.
 *
 * @example
 * ```ts
 * import type { MessageBatch } from "@gw/gateway/cloudflare";
 * export default {
 *   queue(batch: MessageBatch) {
 *     for (const message of batch.messages) message.ack();
 *   },
 * };
 * ```
 */
export interface MessageBatch<Body = unknown> {
  /** The name of the queue the batch came from. */
  readonly queue: string;
  /** The messages. */
  readonly messages: readonly Message<Body>[];
}
