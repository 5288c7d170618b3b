/**
 * The stub gateway server of the benchmarks in its own process (so its work does not share the measured
 * process's event loop): it answers every request with `body` as a 201 JSON, like sendText.
 *
 * @module
 */

/** A running stub process: its URL and how to stop it (kills the process and waits for it). */
export interface StubProcess {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * Start a stub server process on 127.0.0.1 that answers every request with `body` (JSON text), status 201.
 * It exits when its stdin closes, so it never outlives the bench (also when the bench is killed or ends with
 * `Deno.exit`), and its stdout is read to the end, so nothing it prints can block it.
 */
export async function startStubProcess(body: string): Promise<StubProcess> {
  const source = `
const body = ${JSON.stringify(body)};
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen({ port }) { console.log(port); } }, async (request) => {
  await request.arrayBuffer();
  return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
});
await Deno.stdin.readable.pipeTo(new WritableStream());
await server.shutdown();
Deno.exit(0);
`;
  // The source is the module itself (a data: URL), so stdin stays free to tell the stub when to stop.
  const module = `data:application/javascript;base64,${
    btoa(String.fromCharCode(...new TextEncoder().encode(source)))
  }`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", module],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let firstLine = "";
  while (!firstLine.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the stub server did not start");
    firstLine += value;
  }
  const drained = (async () => {
    while (!(await lines.read()).done);
  })();
  const port = Number(firstLine.trim());
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await child.stdin.close();
      await child.status;
      await drained;
    },
  };
}
