// The root entry is focused: what an application uses, not the library's internals. Counted the way
// `deno doc --json mod.ts` lists it (the JSR documentation page shows the same list).
import { ok, strictEqual } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
/** The limit of issue "One concept, one form": at most 100 names at the root (200 in issue 13). */
const MAX_ROOT_SYMBOLS = 100;

interface EntryDoc {
  names: string[];
  moduleDoc: string;
}

/** Every entry's exported names and module doc, from one `deno doc --json` run over all of them. */
async function docsOf(entries: string[]): Promise<Map<string, EntryDoc>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", ...entries],
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  strictEqual(output.code, 0, new TextDecoder().decode(output.stderr));
  const json = JSON.parse(new TextDecoder().decode(output.stdout));
  const docs = new Map<string, EntryDoc>();
  for (const entry of entries) {
    const module = json.nodes[new URL(entry, ROOT).href] as {
      module_doc?: { doc?: string; tags?: { doc?: string }[] };
      symbols: { name: string }[];
    };
    const moduleDoc = [
      module.module_doc?.doc ?? "",
      ...(module.module_doc?.tags ?? []).map((tag) => tag.doc ?? ""),
    ]
      .join("\n");
    docs.set(entry, { names: module.symbols.map((symbol) => symbol.name), moduleDoc });
  }
  return docs;
}

const ENTRIES = [
  "mod.ts",
  "src/delivery/mod.ts",
  "src/media/mod.ts",
  "src/store/mod.ts",
  "src/resources/mod.ts",
  "src/webhooks/mod.ts",
  "src/tasks/mod.ts",
];
const docs = await docsOf(ENTRIES);
const docOf = (entry: string): EntryDoc => docs.get(entry)!;
const root = docOf("mod.ts");

Deno.test(`the root entry exports at most ${MAX_ROOT_SYMBOLS} names`, () => {
  ok(root.names.length > 50, `${root.names.length}: the count is not reading the root entry`);
  ok(
    root.names.length <= MAX_ROOT_SYMBOLS,
    `mod.ts exports ${root.names.length} names (limit ${MAX_ROOT_SYMBOLS}): export internals from their src/ ` +
      `file only, and receiver details from src/webhooks/mod.ts`,
  );
});

Deno.test("internals are not exported from the root entry", () => {
  const internals = [
    "abortableSleep",
    "backoffDelay",
    "buildPath",
    "readPath",
    "renderRoutesMarkdown",
    "ROUTES",
    "failedBeforeSending",
    "RETRYABLE_STATUSES",
    "NOT_ACTED_STATUSES",
    "retryPolicy",
    "errorFromResponse",
    "parseRetryAfter",
    "validateConfig",
    "mergeConfig",
    "validateConnection",
    "mediaKind",
    "MESSAGE_OPTION_KEYS",
    "webhookEventName",
    "resetDefaultWebhookHandler",
    "denoEnvLookup",
    "WEBHOOK_JOB_TYPE",
    "SharedTimeouts",
    "VERSION",
  ];
  for (const name of internals) strictEqual(root.names.includes(name), false, `${name} is exported`);
  for (const name of ["GatewayService", "GatewayApi", "SendTextMessageDto", "handleWebhook", "KvStore"]) {
    ok(root.names.includes(name), `${name} is missing`);
  }
});

Deno.test("each concern's names left out of the root are exported by the entry of its concern", () => {
  const entries: Record<string, string[]> = {
    "src/delivery/mod.ts": [
      "parseRecipient",
      "normalizePhone",
      "LidDirectory",
      "MessageStatusTracker",
      "MessageStatusChanged",
      "reconcileInboundMessages",
      "InstanceHealth",
      "disconnectReason",
      "watchInstanceHealth",
      "ServerDetails",
    ],
    "src/media/mod.ts": ["toMediaInput", "downloadMedia", "MEDIA_SIZE_LIMITS", "MediaInput"],
    "src/store/mod.ts": ["OutboundMessageRecord", "InboundMessageRecord", "StateEntry", "KvStoreOptions"],
    "src/resources/mod.ts": ["Resource", "RequestDto", "RouteEntry", "PreparedRequest", "normalizeNumber"],
    "src/webhooks/mod.ts": ["startWebhookWorker", "WebhookHandlerOptions", "WebhookPayloadOf"],
    "src/tasks/mod.ts": ["createScheduledHandler", "registerScheduledTasks"],
  };
  for (const [entry, names] of Object.entries(entries)) {
    const doc = docOf(entry);
    for (const name of names) {
      strictEqual(root.names.includes(name), false, `${name} is still at the root`);
      ok(doc.names.includes(name), `${name} is not exported by ${entry}`);
    }
  }
  // What an application writes daily stays at the root.
  for (
    const name of [
      "GatewayService",
      "GatewayException",
      "ConfigurationException",
      "SendTextMessageDto",
      "handleWebhook",
      "WebhookProcessor",
      "MemoryStore",
      "KvStore",
    ]
  ) ok(root.names.includes(name), `${name} is missing from the root`);
});

Deno.test("the root entry's module doc opens with the three lines a user starts with", () => {
  const firstExample = root.moduleDoc.split("```ts\n")[1]?.split("```")[0] ?? "";
  strictEqual(
    firstExample,
    'import { GatewayService } from "@gw/gateway";\n' +
      'const gw = GatewayService.make({ server_url: "http://localhost:8080", api_key: "...", instance: "sales" });\n' +
      'await gw.messages().text("5511999999999", "Hello");\n',
  );
});

Deno.test("every receiver name left out of the root is exported by @gw/gateway/webhooks", () => {
  const webhooks = docOf("src/webhooks/mod.ts");
  for (
    const name of [
      "verifyWebhook",
      "WebhookVerifier",
      "KvWebhookDedupe",
      "listDeadLetters",
      "webhookOptionsFromEnv",
    ]
  ) {
    strictEqual(root.names.includes(name), false, name);
    ok(webhooks.names.includes(name), `${name} is in no entry point`);
  }
  // The receiver an application mounts is in both entries, so a Worker can import it alone.
  for (
    const name of ["handleWebhook", "createWebhookHandler", "WebhookProcessor", "AbstractWebhookHandler"]
  ) {
    ok(root.names.includes(name) && webhooks.names.includes(name), name);
  }
});
