/**
 * Throwaway brokers on a free loopback port for the source tests: a private RabbitMQ node (its own node name,
 * data and log directories, Erlang cookie) and a NATS server with JetStream, each stopped (and its files
 * removed) by `close()`. `.ci/deps.sh` installs Debian's `rabbitmq-server` and `nats-server` when missing.
 */

import { freePort } from "./redis_server.ts";
import { realClockEnv } from "./real_clock.ts";

export interface Broker {
  /** `amqp://guest:guest@127.0.0.1:<port>` or `nats://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

const RABBIT = "/usr/lib/rabbitmq/bin/rabbitmq-server";

async function portOpen(port: number): Promise<boolean> {
  try {
    (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

/** Wait until the broker listens on `port`; when it does not, stop it and throw. Gives its `close`. */
async function listening(
  child: Deno.ChildProcess,
  dir: string,
  port: number,
  what: string,
  seconds: number,
): Promise<() => Promise<void>> {
  const close = stopper(child, dir);
  try {
    await waitForPort(port, child, what, seconds);
  } catch (error) {
    await close();
    throw error;
  }
  return close;
}

async function waitForPort(port: number, child: Deno.ChildProcess, what: string, seconds: number) {
  let exited = false;
  child.status.then(() => exited = true);
  for (let i = 0; i < seconds * 10; i++) {
    if (await portOpen(port)) return;
    if (exited) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start on 127.0.0.1:${port}`);
}

function stopper(child: Deno.ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
}

/** A private RabbitMQ node on a free loopback port (about 4 s to start). */
export async function startRabbitMq(): Promise<Broker> {
  const port = freePort();
  const dir = await Deno.makeTempDir({ prefix: "gw-rabbit-" });
  await Deno.mkdir(`${dir}/mnesia`);
  await Deno.mkdir(`${dir}/log`);
  await Deno.writeTextFile(`${dir}/enabled_plugins`, "[].\n");
  // The node's own cookie: it never joins the real server's node or any other.
  await Deno.writeTextFile(`${dir}/.erlang.cookie`, crypto.randomUUID().replaceAll("-", ""), { mode: 0o400 });
  const child = new Deno.Command(Deno.env.get("GW_RABBITMQ_SERVER") ?? RABBIT, {
    env: {
      ...realClockEnv(),
      HOME: dir,
      RABBITMQ_NODENAME: `gwtest${port}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: "127.0.0.1",
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(freePort()),
      RABBITMQ_MNESIA_BASE: `${dir}/mnesia`,
      RABBITMQ_LOG_BASE: `${dir}/log`,
      RABBITMQ_ENABLED_PLUGINS_FILE: `${dir}/enabled_plugins`,
      RABBITMQ_CONFIG_FILE: `${dir}/rabbitmq`,
      RABBITMQ_ADVANCED_CONFIG_FILE: `${dir}/advanced.config`,
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const close = await listening(child, dir, port, "rabbitmq-server (apt-get install -y rabbitmq-server)", 60);
  return { url: `amqp://guest:guest@127.0.0.1:${port}`, port, close };
}

/** A NATS server with JetStream (data in a temporary directory) on a free loopback port, optionally with a user. */
export async function startNats(auth?: { user: string; pass: string }): Promise<Broker> {
  const port = freePort();
  const dir = await Deno.makeTempDir({ prefix: "gw-nats-" });
  const credentials = auth === undefined ? [] : ["--user", auth.user, "--pass", auth.pass];
  const child = new Deno.Command("nats-server", {
    args: ["-js", "-sd", dir, "-a", "127.0.0.1", "-p", String(port), ...credentials],
    env: realClockEnv(),
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const close = await listening(child, dir, port, "nats-server (apt-get install -y nats-server)", 10);
  return { url: `nats://127.0.0.1:${port}`, port, close };
}
