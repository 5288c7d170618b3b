import { deepStrictEqual, ok, rejects, strictEqual } from "node:assert/strict";
import {
  BotResource,
  BusinessResource,
  CallsResource,
  ChatsResource,
  ChatwootResource,
  DifyResource,
  EventSinkResource,
  EvoaiResource,
  EvolutionBotResource,
  FlowiseResource,
  GroupsResource,
  InstancesResource,
  LabelsResource,
  MessagesResource,
  N8nResource,
  OpenaiResource,
  ProfileResource,
  ProxyResource,
  PusherResource,
  S3Resource,
  SettingsResource,
  TemplatesResource,
  TypebotResource,
  WebhooksResource,
} from "../../src/resources/mod.ts";
import { ConnectionException } from "../../mod.ts";
import { renderRoutesMarkdown, ROUTE, ROUTES } from "../../src/resources/routes.ts";
import { Resource, type ResourceContext } from "../../src/resources/resource.ts";
import { CASES } from "../fixtures/resources_cases.ts";
import { defaultAnswer, makeService, normalise, simplify } from "../fixtures/resources_server.ts";

const RESOURCE_CLASSES: Record<string, { prototype: object }> = {
  instances: InstancesResource,
  messages: MessagesResource,
  chats: ChatsResource,
  groups: GroupsResource,
  profile: ProfileResource,
  webhooks: WebhooksResource,
  settings: SettingsResource,
  calls: CallsResource,
  business: BusinessResource,
  templates: TemplatesResource,
  proxy: ProxyResource,
  labels: LabelsResource,
  s3: S3Resource,
  websocket: EventSinkResource,
  rabbitmq: EventSinkResource,
  nats: EventSinkResource,
  pusher: PusherResource,
  sqs: EventSinkResource,
  kafka: EventSinkResource,
  evolutionBot: EvolutionBotResource,
  chatwoot: ChatwootResource,
  typebot: TypebotResource,
  openai: OpenaiResource,
  dify: DifyResource,
  flowise: FlowiseResource,
  n8n: N8nResource,
  evoai: EvoaiResource,
};

/** The methods every bot integration inherits: listed under each bot's rows too. */
const BOT_GROUPS = ["evolutionBot", "typebot", "openai", "dify", "flowise", "n8n", "evoai"];

function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace("{id}", "[^/]+").replace("{instance}", "[^/]+")}$`);
}

for (const testCase of CASES) {
  Deno.test(`${testCase.id} sends exactly the contract's request`, async () => {
    const { gw, calls } = makeService();
    await testCase.call(gw);
    deepStrictEqual(simplify(calls), normalise(testCase.expect));
    for (const call of calls) {
      strictEqual(call.headers.get("apikey"), "k");
      strictEqual(call.headers.get("content-type"), call.body === null ? null : "application/json");
    }
  });
}

Deno.test("route table: the 165 routes of 2.3.6, counted per group as the server registers them", () => {
  strictEqual(ROUTES.length, 165);
  const counts: Record<string, number> = {};
  for (const entry of ROUTES) counts[entry.group] = (counts[entry.group] ?? 0) + 1;
  deepStrictEqual(counts, {
    instance: 8,
    message: 13,
    call: 1,
    chat: 23,
    business: 2,
    group: 16,
    template: 2,
    settings: 2,
    proxy: 2,
    label: 2,
    webhook: 2,
    s3: 2,
    websocket: 2,
    rabbitmq: 2,
    nats: 2,
    pusher: 2,
    sqs: 2,
    kafka: 2,
    evolutionBot: 10,
    chatwoot: 3,
    typebot: 11,
    openai: 14,
    dify: 10,
    flowise: 10,
    n8n: 10,
    evoai: 10,
  });
  strictEqual(new Set(ROUTES.map((entry) => `${entry.method} ${entry.path}`)).size, 165);
  for (const entry of ROUTES) {
    ok(
      entry.path === "/instance/create" || entry.path === "/instance/fetchInstances" ||
        entry.path.endsWith("/{instance}"),
      `${entry.path}: the instance is the last segment`,
    );
  }
});

Deno.test("route table walk: every method listed for a route reaches it with the right verb", async () => {
  const byId = new Map(CASES.map((testCase) => [testCase.id, testCase]));
  for (const entry of ROUTES) {
    for (const method of entry.methods) {
      const testCase = byId.get(method.includes(".") ? method : `${entry.resource}.${method}`);
      ok(testCase, `no test case for ${entry.resource}().${method}()`);
      const { gw, calls } = makeService();
      await testCase.call(gw);
      const pattern = routePattern(entry.path);
      ok(
        calls.some((call) => call.method === entry.method && pattern.test(call.path)),
        `${entry.resource}().${method}() did not send ${entry.method} ${entry.path}: ${
          JSON.stringify(simplify(calls))
        }`,
      );
    }
  }
});

Deno.test("route table lists every public resource method, and every case is in the table", () => {
  const listed = new Set(
    ROUTES.flatMap((entry) =>
      entry.methods.map((method) => method.includes(".") ? method : `${entry.resource}.${method}`)
    ),
  );
  for (const [resource, klass] of Object.entries(RESOURCE_CLASSES)) {
    const inherited = BOT_GROUPS.includes(resource) ? Object.getOwnPropertyNames(BotResource.prototype) : [];
    const own = Object.getOwnPropertyNames(klass.prototype);
    const names = [...own, ...inherited].filter((name) => name !== "constructor");
    for (const name of names) {
      ok(listed.has(`${resource}.${name}`), `${resource}().${name}() is not in ROUTES`);
    }
  }
  for (const testCase of CASES) ok(listed.has(testCase.id), `${testCase.id} is not in ROUTES`);
  strictEqual(CASES.length, listed.size);
});

Deno.test("idempotent routes are retried after a 500, the others are not", async () => {
  const byId = new Map(CASES.map((testCase) => [testCase.id, testCase]));
  for (const entry of ROUTES) {
    const testCase = byId.get(`${entry.resource}.${entry.methods[0]}`)!;
    const pattern = routePattern(entry.path);
    let failed = false;
    const { gw, calls } = makeService({
      config: { retry: { max_retries: 1 } },
      handler: (request) => {
        if (!failed && request.method === entry.method && pattern.test(request.path)) {
          failed = true;
          return {
            status: 500,
            body: { status: 500, error: "Internal Server Error", response: { message: "boom" } },
          };
        }
        return defaultAnswer(request);
      },
    });
    try {
      await testCase.call(gw);
      ok(entry.idempotent, `${entry.method} ${entry.path} succeeded although it is not idempotent`);
    } catch (error) {
      ok(error instanceof ConnectionException, String(error));
      ok(!entry.idempotent, `${entry.method} ${entry.path} failed although it is idempotent`);
    }
    const attempts = calls.filter((call) => call.method === entry.method && pattern.test(call.path)).length;
    strictEqual(attempts, entry.idempotent ? 2 : 1, `${entry.method} ${entry.path}`);
  }
});

Deno.test("docs/resources.md holds the generated route table", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/resources.md", import.meta.url));
  // deno fmt pads Markdown tables; compare cell contents only.
  const flat = (text: string) => text.replace(/ *\| */g, "|").replace(/\|-+(?=\|)/g, "|-");
  ok(flat(docs).includes(flat(renderRoutesMarkdown())), "regenerate the table with renderRoutesMarkdown()");
});

Deno.test("a route answering an error body rejects with the mapped exception", async () => {
  const { gw } = makeService({
    handler: () => ({
      status: 400,
      body: { status: 400, error: "Bad Request", response: { message: [["x"]] } },
    }),
  });
  await rejects(gw.groups().findInfo("120363025246125888@g.us"), { name: "ValidationException" });
});

Deno.test("Resource.call: a table row and a verb with a path reach the same route; the row brings its retry rule", async () => {
  class Custom extends Resource {
    byRow() {
      return this.call(ROUTE.label.findLabels);
    }
    byPath() {
      return this.call("GET", "/label/findLabels/{instance}");
    }
    changeByRow() {
      return this.call(ROUTE.label.handleLabel, {
        body: { number: "5511999999999", labelId: "3", action: "add" },
      });
    }
  }
  let failures = 0;
  const { gw, calls } = makeService({
    config: { retry: { max_retries: 1 } },
    handler: (request) => {
      if (request.method === "POST" && failures++ === 0) {
        return {
          status: 500,
          body: { status: 500, error: "Internal Server Error", response: { message: "x" } },
        };
      }
      return undefined;
    },
  });
  // The resource's bound context, as GatewayService builds it for every resource.
  const custom = new Custom((gw.labels() as unknown as { context: ResourceContext }).context);
  await custom.byRow();
  await custom.byPath();
  deepStrictEqual(calls.map((call) => `${call.method} ${call.path}`), [
    "GET /label/findLabels/sales",
    "GET /label/findLabels/sales",
  ]);
  // handleLabel is a change: never retried when its outcome is unclear.
  await rejects(custom.changeByRow(), { name: "ConnectionException" });
  strictEqual(calls.filter((call) => call.method === "POST").length, 1);
});
