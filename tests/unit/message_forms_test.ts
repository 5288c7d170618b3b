/**
 * One method per message kind: the short arguments and the request object (the seed's `*Dto` or its fields)
 * send the same request, and a request object meant for another kind is refused before any request.
 */
import { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { SendMediaMessageDto, SendTextMessageDto, ValidationException } from "../../mod.ts";
import { REQUEST_FORM_CASES } from "../fixtures/resources_cases.ts";
import { makeService, normalise, simplify } from "../fixtures/resources_server.ts";

for (const testCase of REQUEST_FORM_CASES) {
  Deno.test(`${testCase.id} sends exactly the contract's request`, async () => {
    const { gw, calls } = makeService();
    await testCase.call(gw);
    deepStrictEqual(simplify(calls), normalise(testCase.expect));
  });
}

Deno.test("text: the short form and a SendTextMessageDto send the same body, with call options last", async () => {
  const { gw, calls } = makeService();
  await gw.messages().text("+55 11 99999-9999", "Hi", { delay: 5 }, { instance: "support" });
  await gw.messages().text(SendTextMessageDto.from({ number: "5511999999999", text: "Hi", delay: 5 }), {
    instance: "support",
  });
  strictEqual(calls.length, 2);
  deepStrictEqual(simplify(calls)[0], simplify(calls)[1]);
  strictEqual(calls[0].path, "/message/sendText/support");
});

Deno.test("image() refuses a media request of another type, before any request", async () => {
  const { gw, calls } = makeService();
  await rejects(
    () =>
      gw.messages().image(
        { number: "5511999999999", mediatype: "video", media: "https://example.com/v.mp4" } as never,
      ),
    (error: unknown) =>
      error instanceof ValidationException &&
      error.message === 'Invalid media message: image() sends mediatype "image"; got "video": use video()',
  );
  const dto = SendMediaMessageDto.from({
    number: "5511999999999",
    mediatype: "document",
    media: "https://example.com/a.pdf",
  });
  await rejects(() => gw.messages().video(dto), ValidationException);
  strictEqual(calls.length, 0);
});

Deno.test("a request object that puts a call option among its fields is refused, not sent", async () => {
  const { gw, calls } = makeService();
  await rejects(
    () =>
      gw.messages().poll({ number: "5511999999999", name: "Q", values: ["a", "b"], instance: "x" } as never),
    (error: unknown) =>
      error instanceof ValidationException && error.message.includes('"instance" is a call option'),
  );
  strictEqual(calls.length, 0);
});

Deno.test("a call option among a short form's optional fields is refused, naming where it belongs", async () => {
  const { gw, calls } = makeService();
  await rejects(
    () => gw.messages().text("5511999999999", "hi", { idempotencyKey: "order-1" } as never),
    (error: unknown) =>
      error instanceof ValidationException &&
      error.message ===
        'Invalid text message: "idempotencyKey" is a call option, not a field of the request: pass it in the call\'s options',
  );
  strictEqual(calls.length, 0);
  await gw.messages().text("5511999999999", "hi", { delay: 5 }, { idempotencyKey: "order-1" });
  strictEqual(calls.length, 1);
});
