/**
 * JSON request bodies with a size limit (16 KiB for the order book, 8 KiB for app data,
 * reference §0), counted after decoding. A body that is not declared as JSON, or in a
 * Content-Encoding the parser does not decode, gets 415; one its encoding does not decode, or an
 * empty one, a clear 400.
 */
import bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { ApiError } from './errors.js';

/** The content codings the parser decodes (one, not a list), by their lowercase names. */
const CODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);

/** The request's content coding, lowercase (RFC 9110 §8.4.1: case-insensitive), or 415. */
function contentCoding(header: string): string {
  const coding = header.trim().toLowerCase() || 'identity';
  if (!CODINGS.has(coding)) {
    throw new ApiError(
      'UnsupportedMediaType',
      `Content-Encoding ${JSON.stringify(header)} is not supported: send identity, gzip, deflate or br`,
    );
  }
  return coding;
}

/**
 * Whether the parser failed in the decoder: its own errors (size, syntax, an aborted request)
 * carry a `type`, a decoder's (zlib's) do not.
 */
const failedDecoding = (coding: string, error: unknown) =>
  coding !== 'identity' && typeof error === 'object' && error !== null && !('type' in error);

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
      throw new ApiError('PayloadTooLarge', `request body exceeds ${limitBytes} bytes`);
    if (!ctx.request.is('json')) {
      const hasBody = length > 0 || ctx.get('transfer-encoding') !== '';
      if (hasBody) throw new ApiError('UnsupportedMediaType', 'send the body as application/json');
      throw new ApiError('InvalidJson', 'a JSON request body is required');
    }
    const coding = contentCoding(ctx.get('content-encoding'));
    // The parser picks its decoder by the header's exact spelling.
    ctx.req.headers['content-encoding'] = coding;
    try {
      await parse(ctx, async () => undefined);
    } catch (error) {
      // The parser stops reading a chunked body at the limit and pauses the request: drain the
      // rest, as Node drains bodies nobody reads, or a client still sending never gets its 413
      // and the connection stays open.
      ctx.req.resume();
      if (failedDecoding(coding, error)) {
        throw new ApiError('InvalidBody', `the request body is not valid ${coding} data`);
      }
      throw error;
    }
    const raw: unknown = ctx.request.rawBody;
    if (typeof raw !== 'string' || raw.trim() === '') {
      throw new ApiError('InvalidJson', 'a JSON request body is required');
    }
    await next();
  };
}
