// Two versions of the library in one process: `messages().text()` against an injected fetch answering 201 (no
// network: the library's own work and the runtime's Response handling), without a limiter and with the
// default memory limiter (limits never reached), in interleaved rounds (order alternating); each figure is
// the median over the rounds of after / before.
//
// Run: git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
//      BEFORE=/tmp/before [ROUNDS=30] deno run -A --lock=tests/npm/deno.lock bench/send_before_after.ts
import * as after from "../mod.ts";

const before: typeof after = await import(`${Deno.env.get("BEFORE") ?? "/tmp/before"}/mod.ts`);
const answer = JSON.stringify({
  key: { remoteJid: "5511999999999@s.whatsapp.net", fromMe: true, id: "3EB0C7" },
  status: "PENDING",
});
// As a server answers: with its length, so the answer is read in one go.
const headers = { "content-type": "application/json", "content-length": String(answer.length) };
const stub: typeof fetch = () => Promise.resolve(new Response(answer, { status: 201, headers }));
const connection = { server_url: "http://gateway.bench", api_key: "k", instance: "sales" };
const limits = { messages: { max_attempts: 1_000_000_000, decay_seconds: 60 } };
function service(m: typeof after, limiter: boolean): after.GatewayService {
  const rate_limiting = limiter ? { limits } : { enabled: false };
  return new m.GatewayService({ ...connection, rate_limiting }, { fetch: stub });
}
const services: Record<string, after.GatewayService> = {
  "before, no limiter": service(before, false),
  "after, no limiter": service(after, false),
  "before, memory limiter": service(before, true),
  "after, memory limiter": service(after, true),
};
async function send(gw: after.GatewayService, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await gw.messages().text("5511999999999", "hi");
  return (performance.now() - start) / n * 1000;
}
for (const gw of Object.values(services)) await send(gw, 5_000); // warm up
const times: Record<string, number[]> = {};
for (let round = 0; round < Number(Deno.env.get("ROUNDS") ?? 30); round++) {
  const names = Object.keys(services);
  if (round % 2) names.reverse();
  for (const name of names) (times[name] ??= []).push(await send(services[name], 2_000));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
for (const [name, list] of Object.entries(times)) console.log(`${name}: ${median(list).toFixed(2)} µs`);
for (const setting of ["no limiter", "memory limiter"]) {
  const was = times[`before, ${setting}`];
  const ratio = median(times[`after, ${setting}`].map((time, i) => time / was[i]));
  console.log(`${setting}: after / before ${ratio.toFixed(3)}`);
}
