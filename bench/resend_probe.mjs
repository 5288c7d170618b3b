// Does this runtime's own fetch send a POST twice? A raw HTTP/1.1 server (node:net, so that Node, Bun and Deno
// run the same file) answers the first POST on a kept-alive connection, then reads the next POST in full and
// closes the connection without answering. A runtime that retries a request on a reused connection by itself
// delivers that POST a second time, and its caller sees one answer.
//
//   node bench/resend_probe.mjs
//   ~/.cache/gw-gateway/bun-1.4.4/node_modules/.bin/bun bench/resend_probe.mjs
//   deno run --allow-net bench/resend_probe.mjs
//
// Prints one line per case: what the server read, and what the caller saw.

import { createServer } from "node:net";

/** Serve raw HTTP/1.1: `closeOn(n)` true means the n-th POST (1-based) is read and the socket closed. */
function rawServer(closeOn) {
  let posts = 0;
  let connections = 0;
  const onConnection = [];
  const server = createServer((socket) => {
    const id = ++connections;
    let pending = Buffer.alloc(0);
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = pending.subarray(0, end).toString("latin1");
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        posts++;
        onConnection.push(id);
        if (closeOn(posts)) {
          socket.destroy();
          return;
        }
        const body = `{"post":${posts}}`;
        socket.write(
          `HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/message/sendText/x`,
        posts: () => posts,
        connections: () => connections,
        onConnection: () => onConnection.join(","),
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

async function post(url) {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"number":"5511999999999","text":"hi"}',
    });
    return `${response.status} ${await response.text()}`;
  } catch (error) {
    const cause = error?.cause?.code ?? error?.cause?.message ?? error?.code ?? error?.message;
    return `error (${String(cause).slice(0, 80)})`;
  }
}

function runtimeName() {
  if (typeof Deno !== "undefined") return `Deno ${Deno.version.deno}`;
  if (typeof Bun !== "undefined") return `Bun ${Bun.version}`;
  return `Node ${process.versions.node}`;
}

// Case 1: the second POST goes out on the connection the first one used, and that connection closes unanswered.
{
  const server = await rawServer((n) => n === 2);
  const first = await post(server.url);
  // A real sender's next message comes later; a pause lets every runtime put the connection back in its pool.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const second = await post(server.url);
  console.log(
    `${runtimeName()} reused connection: server read ${server.posts()} POSTs (on connections ${server.onConnection()}); ` +
      `caller saw "${first}" then "${second}"`,
  );
  await server.close();
}

// Case 2: the only POST goes out on a fresh connection, which closes unanswered.
{
  const server = await rawServer((n) => n === 1);
  const only = await post(server.url);
  console.log(
    `${runtimeName()} fresh connection: server read ${server.posts()} POSTs (on connections ${server.onConnection()}); ` +
      `caller saw "${only}"`,
  );
  await server.close();
}
