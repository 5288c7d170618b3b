import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  ConfigurationException,
  ConnectionException,
  GatewayApiException,
  GatewayException,
  GatewayService,
  isOutcomeUnknown,
  ValidationException,
  WebhookException,
} from "../../mod.ts";
import { WebhookVerificationException } from "../../src/webhooks/mod.ts";

Deno.test("errors: setup errors stand beside the server's answers, under one GatewayException", () => {
  const setup = [
    new ConfigurationException('"api_key" is missing', { setting: "api_key", connection: "main" }),
    new WebhookException("Cannot queue webhook: writing the body failed"),
    new WebhookVerificationException("signature_mismatch", "Cannot verify webhook: signature does not match"),
  ];
  for (const error of setup) {
    ok(error instanceof GatewayException, error.name);
    ok(!(error instanceof GatewayApiException), `${error.name} is not one of the server's answers`);
    strictEqual(isOutcomeUnknown(error), false, `${error.name} is thrown before anything is sent`);
  }
  for (const error of [new ValidationException("bad", { status: 400 }), new ConnectionException("down")]) {
    ok(error instanceof GatewayApiException && error instanceof GatewayException, error.name);
  }
  deepStrictEqual(setup[0].toJSON(), {
    name: "ConfigurationException",
    message: '"api_key" is missing',
    setting: "api_key",
    connection: "main",
    instance: undefined,
  });
  const refused = setup[2] as WebhookVerificationException;
  deepStrictEqual([refused.status, refused.messages], [401, ["signature_mismatch"]]);
});

Deno.test("errors: a refused configuration is caught as GatewayException, not as a failed request", () => {
  throws(() => GatewayService.make({ server_url: "http://127.0.0.1:1" }), (e) => {
    ok(e instanceof ConfigurationException && !(e instanceof GatewayApiException));
    strictEqual(e.setting, "api_key");
    strictEqual("status" in e, false, "no HTTP fields on a setup error");
    return true;
  });
});
