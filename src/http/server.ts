/**
 * The HTTP server the Koa app runs on, with the bounds a slow client meets. A request's head
 * and body must arrive within `requestTimeoutMs` (a 16 KiB body, the largest taken, needs a
 * fraction of a second on any link a client trades from): a client that trickles it gets a 408
 * and loses the connection then, instead of after Node's five minutes. One client holds at most
 * `maxConnectionsPerClient` connections at once (./connection-bound.ts).
 */
import http, { type Server } from 'node:http';
import type Koa from 'koa';
import { answerClientErrors } from './client-errors.js';
import { boundConnectionsPerClient } from './connection-bound.js';

export interface HttpServerOptions {
  requestTimeoutMs: number;
  /** 0: no bound. */
  maxConnectionsPerClient: number;
  /**
   * Proxies in front: every connection then comes from one of them, which bounds its own
   * clients' connections, so this server bounds none.
   */
  trustedProxies: number;
}

/** How long an idle keep-alive connection stays open: past the 60 s of common proxies. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export function createHttpServer(app: Koa, options: HttpServerOptions): Server {
  const server = http.createServer(
    {
      requestTimeout: options.requestTimeoutMs,
      headersTimeout: options.requestTimeoutMs,
      // Node looks for requests past their deadline on this interval (30 s by default): a
      // deadline holds to within it.
      connectionsCheckingInterval: Math.min(1000, options.requestTimeoutMs),
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    },
    app.callback(),
  );
  answerClientErrors(server);
  if (options.maxConnectionsPerClient > 0 && options.trustedProxies === 0) {
    boundConnectionsPerClient(server, {
      max: options.maxConnectionsPerClient,
      lingerMs: options.requestTimeoutMs,
    });
  }
  return server;
}
