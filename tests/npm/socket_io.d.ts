// The few types the tests use from `socket.io`'s server: its own declarations pull in `@types/node`, whose
// DOM-less `Event` breaks the type check of src/ (the EventTarget users) in the same program.
export interface ServerNamespace {
  emit(event: string, ...args: unknown[]): boolean;
  sockets: Map<string, { conn: { close(): void } }>;
}
export interface ServerOptions {
  allowRequest?: (
    req: { url?: string; headers: Record<string, string | string[] | undefined> },
    callback: (error: string | null | undefined, success: boolean) => void,
  ) => void;
}
export declare class Server {
  constructor(http: unknown, options?: ServerOptions);
  of(name: string): ServerNamespace;
  close(callback?: (error?: Error) => void): void;
}
