/**
 * Opening the configured Deno KV file as a `KvStore` for `prune`, `retry-failed` and `serve`.
 *
 * @module
 */

import { openKvWhenFree } from "../backends/kv/busy.ts";
import { KvStore } from "../backends/kv/store.ts";
import type { CliConfig } from "./config.ts";
import { CliError, EXIT_USAGE } from "./io.ts";

/** An open KV file and the store on it. */
export interface OpenStore {
  /** The KV handle (the store does not own it). */
  kv: Deno.Kv;
  /** The record store. */
  store: KvStore;
  /** The file path. */
  path: string;
  /** Close the KV (idempotent). */
  close(): void;
}

/**
 * Open `cli.kvPath`. With `mustExist` a missing file is exit code 2 (a maintenance command on a fresh
 * empty file would report nothing and hide a wrong path); `serve` creates it.
 */
export async function openStore(cli: CliConfig, options: { mustExist: boolean }): Promise<OpenStore> {
  const path = cli.kvPath;
  const file = cli.kvFile;
  if (options.mustExist) {
    try {
      await Deno.stat(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new CliError(
          `Cannot open store: "${path}" does not exist (set "kv.path" in ${cli.path} or GATEWAY_KV_PATH)`,
          EXIT_USAGE,
        );
      }
      throw error;
    }
  }
  if (typeof Deno.openKv !== "function") {
    throw new CliError("Cannot open store: Deno KV is unavailable (run with --unstable-kv)", EXIT_USAGE);
  }
  let kv: Deno.Kv;
  try {
    kv = await openKvWhenFree(file);
  } catch (error) {
    throw new CliError(
      `Cannot open store "${path}": ${error instanceof Error ? error.message : error}`,
      EXIT_USAGE,
      {
        cause: error,
      },
    );
  }
  let open = true;
  return {
    kv,
    store: new KvStore(kv),
    path,
    close() {
      if (!open) return;
      open = false;
      kv.close();
    },
  };
}

/**
 * Run a maintenance command's `task` on the configured KV file (which must exist), closed afterwards
 * whatever happens; the answer names the file, which every report shows.
 */
export async function withStore<T>(
  cli: CliConfig,
  task: (store: KvStore) => Promise<T>,
): Promise<{ path: string; result: T }> {
  const opened = await openStore(cli, { mustExist: true });
  try {
    return { path: opened.path, result: await task(opened.store) };
  } finally {
    opened.close();
  }
}
