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

/** Start a stub server process on 127.0.0.1 that answers every request with `body` (JSON text), status 201. */
export async function startStubProcess(body: string): Promise<StubProcess> {
  const source = `
const body = ${JSON.stringify(body)};
Deno.serve({ hostname: "127.0.0.1", port: 0, onListen({ port }) { console.log(port); } }, async (request) => {
  await request.arrayBuffer();
  return new Response(body, { status: 201, headers: { "content-type": "application/json" } });
});
`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(source));
  await writer.close();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let firstLine = "";
  while (!firstLine.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stub server did not start");
    firstLine += value;
  }
  reader.releaseLock();
  const port = Number(firstLine.trim());
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill();
      await child.status;
      await child.stdout.cancel().catch(() => {});
    },
  };
}
