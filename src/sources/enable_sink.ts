import { ConfigurationException } from "../errors.ts";
import type { SourceScope } from "./scope.ts";

/** How one broker's sink is named and switched on. */
export interface SinkSwitch {
  /** `RabbitMQ`, `NATS`: for the error. */
  broker: string;
  /** The server's environment variable that must be on (`RABBITMQ_ENABLED`). */
  setting: string;
  /** `POST /<broker>/set/<instance>` with `{ enabled: true, events }`. */
  set(instance: string, events: string[]): Promise<{ data: unknown }>;
}

/** Enable the sink of every instance of `scope` for its events; throws when the server stored nothing. */
export async function enableSinks(scope: SourceScope, sink: SinkSwitch): Promise<void> {
  for (const instance of scope.instances) {
    const answer = await sink.set(instance, scope.events);
    if (answer.data === null || answer.data === undefined) {
      throw new ConfigurationException(
        `Cannot enable ${sink.broker} for instance "${instance}": the server stored nothing (is ${sink.setting} on in its environment?)`,
        { setting: sink.setting },
      );
    }
  }
}
