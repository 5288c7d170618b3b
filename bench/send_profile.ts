// Where a send's own CPU time goes: 20 000 `messages().text()` against a fetch stub injected in this process
// (no network, so the profile holds the library's work and the runtime's Response handling only), then the
// top self times of the profile it wrote, grouped by function.
//
// Run: deno run --cpu-prof --cpu-prof-dir=/tmp/gw-prof --allow-read --allow-env \
//        --lock=tests/npm/deno.lock bench/send_profile.ts [--sends 20000]
// then: deno run --allow-read bench/send_profile.ts /tmp/gw-prof/<file>.cpuprofile [rows]
import { GatewayService } from "../mod.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Self time per function (percent of all samples), largest first. */
async function topSelfTimes(file: string, rows: number): Promise<void> {
  const profile = JSON.parse(await Deno.readTextFile(file)) as {
    nodes: ProfileNode[];
    samples: number[];
    timeDeltas: number[];
  };
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    const where = url.replace(/^.*\/(src|node_modules)\//, "$1/");
    const name = `${functionName || "(anonymous)"} ${where}${where ? `:${lineNumber + 1}` : ""}`;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(name, (self.get(name) ?? 0) + dt);
    total += dt;
  });
  for (const [name, time] of [...self].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${(time / total * 100).toFixed(1).padStart(5)} %  ${name}`);
  }
}

async function drive(sends: number): Promise<void> {
  const body = JSON.stringify({ key: { id: "3EB0C7F3A1B2C3D4E5F6" }, status: "PENDING" });
  // As a server answers: with its length, so the answer is read in one go.
  const headers = { "content-type": "application/json", "content-length": String(body.length) };
  const fetch: typeof globalThis.fetch = () => Promise.resolve(new Response(body, { status: 201, headers }));
  const gw = new GatewayService(
    {
      server_url: "http://127.0.0.1:1",
      api_key: "bench-key",
      instance: "bench",
      rate_limiting: { enabled: false },
    },
    { fetch },
  );
  for (let i = 0; i < 2_000; i++) await gw.messages().text("5511999999999", "Hello"); // warm up
  const start = performance.now();
  for (let i = 0; i < sends; i++) await gw.messages().text("5511999999999", "Hello");
  console.log(`${sends} sends, ${((performance.now() - start) / sends * 1000).toFixed(1)} µs each`);
}

const [first, second] = Deno.args;
if (first?.endsWith(".cpuprofile")) await topSelfTimes(first, Number(second ?? 30));
else await drive(first === "--sends" ? Number(second) : 20_000);
