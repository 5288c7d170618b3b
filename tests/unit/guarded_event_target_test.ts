import { deepStrictEqual, strictEqual } from "node:assert/strict";
import { MessageSent } from "../../mod.ts";
import { GuardedEventTarget } from "../../src/guarded_event_target.ts";
import { GatewayFake } from "../../src/testing/mod.ts";

Deno.test("a throwing or rejecting listener neither crashes the process nor stops the other listeners", async () => {
  const target = new GuardedEventTarget();
  const seen: string[] = [];
  target.addEventListener("ping", () => {
    throw new Error("listener bug");
  });
  target.addEventListener("ping", () => Promise.reject(new Error("async listener bug")));
  target.addEventListener("ping", { handleEvent: () => seen.push("object") });
  const once = () => seen.push("once");
  target.addEventListener("ping", once, { once: true });
  const removed = () => seen.push("removed");
  target.addEventListener("ping", removed);
  target.removeEventListener("ping", removed);
  strictEqual(target.dispatchEvent(new Event("ping")), true);
  target.dispatchEvent(new Event("ping"));
  await Promise.resolve();
  deepStrictEqual(seen, ["object", "once", "object"]);
});

Deno.test("a MessageSent listener that throws does not turn a successful send into a failure", async () => {
  const { service, fake } = GatewayFake.create();
  try {
    service.events.addEventListener(MessageSent.type, () => {
      throw new Error("listener bug");
    });
    const res = await service.messages().text("5511999999999", "still fine");
    strictEqual(res.status, 201);
  } finally {
    await fake.close();
  }
});
