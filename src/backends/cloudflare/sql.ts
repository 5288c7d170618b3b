/**
 * One SQL runner for D1 (async) and Durable Object SQLite (sync), so state and store are written once.
 *
 * @module
 */

import type { D1Database, SqlStorage } from "./bindings.ts";

/** One statement and its `?` parameters. */
export interface SqlStatement {
  sql: string;
  params: readonly unknown[];
}

/** Runs statements; several run in one transaction. Answers each statement's rows. */
export type SqlRunner = (statements: readonly SqlStatement[]) => Promise<Record<string, unknown>[][]>;

/** Shorthand for a statement. */
export function sql(text: string, ...params: unknown[]): SqlStatement {
  return { sql: text, params };
}

/** A runner over a D1 binding: one statement alone, several as a `batch` (one transaction). */
export function d1Runner(db: D1Database): SqlRunner {
  return async (statements) => {
    const prepared = statements.map((s) => db.prepare(s.sql).bind(...s.params));
    if (prepared.length === 1) return [(await prepared[0].all()).results];
    const results = await db.batch(prepared);
    return results.map((result) => result.results ?? []);
  };
}

/** A runner over a Durable Object's synchronous SQL: nothing else runs in the object between statements. */
export function storageRunner(storage: SqlStorage): SqlRunner {
  return (statements) => {
    try {
      return Promise.resolve(statements.map((s) => storage.exec(s.sql, ...s.params).toArray()));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}

/** Statements run one by one in the given order (CREATE TABLE IF NOT EXISTS ...): split on `;` at line ends. */
export function splitStatements(script: string): string[] {
  return script
    .split(/;\s*$/m)
    .map((part) => part.replace(/^\s*--.*$/gm, "").trim())
    .filter((part) => part !== "");
}
