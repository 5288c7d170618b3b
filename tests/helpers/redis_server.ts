/**
 * A throwaway `redis-server` on a free loopback port, for the Redis backend tests: no persistence, stopped
 * (and awaited) by `close()`. `.ci/run` installs Debian's `redis-server` when it is missing.
 */

import { realClockEnv } from "./real_clock.ts";

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Start a server and wait until it accepts connections (at most 10 s per try). The free port is found by
 * binding and releasing it, so a test file running beside this one may take it first: up to 3 tries.
 */
export async function startRedisServer(): Promise<RedisServer> {
  let failure: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(freePort());
    } catch (error) {
      if (!(error instanceof RedisStartError)) throw error;
      failure = error;
    }
  }
  throw failure;
}

class RedisStartError extends Error {}

async function startOnce(port: number): Promise<RedisServer> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("redis-server", {
      args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      env: realClockEnv(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    throw new Error("Cannot start redis-server (install it: apt-get install -y redis-server)", {
      cause: error,
    });
  }
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 10_000;
  while (!seen.includes("Ready to accept connections") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
  }
  // Keep draining so that the server never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  const close = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await drained;
    await stderr;
  };
  if (!seen.includes("Ready to accept connections")) {
    await close();
    throw new RedisStartError(`redis-server did not start on port ${port}: ${seen.slice(-500)}`);
  }
  return { url: `redis://127.0.0.1:${port}`, port, close };
}

/** Run `body` with a fresh server, stopped afterwards. */
export async function withRedisServer<T>(body: (server: RedisServer) => Promise<T>): Promise<T> {
  const server = await startRedisServer();
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** Send one raw command to `url` on a short-lived connection (to look at what a backend wrote). */
export async function redisCommand(url: string, args: string[]): Promise<unknown> {
  // deno-lint-ignore no-import-prefix -- only ./redis users install the client (not in the import map)
  const { createClient } = await import("npm:@redis/client@6.3.1");
  const client = createClient({ url, socket: { reconnectStrategy: false } });
  client.on("error", () => {});
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    await client.close();
  }
}
