/**
 * Every request can be followed: it gets an id (the client's `X-Request-Id` when well formed,
 * else a new UUID), answered in `X-Request-Id` and carried by every line logged while it is
 * handled, and, unless turned off, one access-log line once it is answered.
 *
 * A client's id is echoed into a header and the logs, so only ids of common shapes are taken
 * (UUIDs, ULIDs, trace ids, base64): anything else, control characters or a 10 KiB header, is
 * replaced, never echoed.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { withLogFields } from '../log-context.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const WELL_FORMED = /^[\w.:/+=@~-]{1,128}$/;

/** The id a request goes by: its own `X-Request-Id` when well formed, else a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && WELL_FORMED.test(header) ? header : randomUUID();
}

export function requestLog(options: { logger: Logger; accessLog: boolean }): Middleware {
  const { logger, accessLog } = options;
  return (ctx, next) => {
    const requestId = requestIdOf(ctx.req.headers['x-request-id']);
    ctx.set(REQUEST_ID_HEADER, requestId);
    return withLogFields({ requestId }, async () => {
      const began = performance.now();
      try {
        await next();
      } finally {
        if (accessLog) {
          logger.info(
            {
              method: ctx.method,
              // The pattern, as the metrics label it: paths hold UIDs and addresses.
              route: typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : null,
              status: ctx.status,
              durationMs: Math.round((performance.now() - began) * 100) / 100,
            },
            'request',
          );
        }
      }
    });
  };
}
