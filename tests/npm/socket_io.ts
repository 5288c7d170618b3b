/**
 * The socket.io server (`socket.io`) behind the WebSocket source's tests, standing in for the gateway
 * server's own socket.io: test-only, pinned here and nowhere else (see `tests/npm/miniflare.ts`). The client
 * (`socket.io-client`) is the one src/sources/websocket/ pins.
 *
 * @module
 */

// @ts-types="./socket_io.d.ts"
// deno-lint-ignore no-import-prefix -- test-only, pinned here (not in the import map)
import { Server } from "npm:socket.io@4.8.4";

export { Server };
