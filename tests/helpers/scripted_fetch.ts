// A fetch double: answers from a script, records every call. Used by the unit tests of the client.

export interface RecordedCall {
  url: string;
  method: string;
  headers: Headers;
  body: string | null;
  thisValue: unknown;
}

export type Step =
  | Response
  | Error
  | ((call: RecordedCall, signal: AbortSignal | undefined) => Promise<Response>);

export function json(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...Object.fromEntries(new Headers(headers)),
    },
  });
}

export function scriptedFetch(steps: Step[]): { fetch: typeof fetch; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const queue = [...steps];
  const fetcher = async function (
    this: unknown,
    input: RequestInfo | URL,
    init?: RequestInit,
  ): Promise<Response> {
    const call: RecordedCall = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? init.body : null,
      thisValue: this,
    };
    calls.push(call);
    const step = queue.shift();
    if (step === undefined) throw new Error(`scriptedFetch: no answer scripted for call ${calls.length}`);
    if (step instanceof Error) throw step;
    if (typeof step === "function") return await step(call, init?.signal ?? undefined);
    return step;
  };
  return { fetch: fetcher as typeof fetch, calls };
}

/** A fetch step that never answers until its signal aborts (a hung server). */
export function hang(): Step {
  return (_call, signal) =>
    new Promise((_, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
}

/** A fake clock plus a sleep that advances it instead of waiting. */
export function fakeTime(start = 1_700_000_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    sleeps,
    sleep: (ms: number, signal?: AbortSignal): Promise<void> => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}
