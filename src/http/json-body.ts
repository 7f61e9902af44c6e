/**
 * JSON request bodies with a size limit (16 KiB for the order book, 8 KiB for app data,
 * reference §0). A body that is not declared as JSON gets 415; an empty one a clear 400.
 */
import bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { ApiError } from './errors.js';

export function jsonBody(limitBytes: number): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: `${limitBytes}b`,
    strict: false,
    onerror: (error) => {
      throw error;
    },
  });
  return async (ctx, next) => {
    const length = Number(ctx.get('content-length') || 0);
    if (length > limitBytes)
      throw new ApiError(413, 'PayloadTooLarge', `request body exceeds ${limitBytes} bytes`);
    if (!ctx.request.is('json')) {
      const hasBody = length > 0 || ctx.get('transfer-encoding') !== '';
      if (hasBody)
        throw new ApiError(415, 'UnsupportedMediaType', 'send the body as application/json');
      throw new ApiError(400, 'InvalidJson', 'a JSON request body is required');
    }
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      // The parser stops reading a chunked body at the limit and pauses the request: drain the
      // rest, as Node drains bodies nobody reads, or a client still sending never gets its 413
      // and the connection stays open.
      ctx.req.resume();
      throw error;
    }
    const raw: unknown = ctx.request.rawBody;
    if (typeof raw !== 'string' || raw.trim() === '') {
      throw new ApiError(400, 'InvalidJson', 'a JSON request body is required');
    }
    await next();
  };
}
