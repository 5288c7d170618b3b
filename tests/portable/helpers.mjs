// Servers for the portable tests, with Node's built-ins (Node and Bun both have them): a web-standard fetch
// handler mounted in node:http through the package's toNodeListener, and a throwaway redis-server on a free
// loopback port.

import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { toNodeListener } from "@gw/gateway/webhooks";

/** Serve `handler(Request) => Promise<Response>` from node:http on 127.0.0.1 with the package's
 * `toNodeListener`; resolves to `{ url, close }`. */
export function serveNode(handler) {
  const listener = toNodeListener(handler);
  const server = createServer((req, res) => void listener(req, res));
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((done) => (server.closeAllConnections?.(), server.close(() => done()))),
      });
    });
  });
}

/** A port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Start redis-server (no persistence) and wait until it accepts connections; `{ url, close }`. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${seen}`)), 10_000);
    child.on("error", (error) => (clearTimeout(timer), reject(error)));
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.stdout.resume();
  child.stderr.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
