/**
 * CORS as the reference answers it: any origin, the order book's methods, and every header a
 * client sends: the official SDK's (`Accept`, `Content-Type: application/json`, `Authorization`
 * for its `bearerToken`, `X-API-Key` for its `apiKey`), the subscription routes' credentials
 * (`X-API-Key`, `X-Signature`, `X-Issued-At`) and a request id (`X-Request-Id`).
 */
import type { Middleware } from 'koa';

const METHODS = 'GET,POST,DELETE,OPTIONS,PUT,PATCH,HEAD';
const HEADERS = [
  'origin',
  'accept',
  'content-type',
  'authorization',
  'x-auth-token',
  'x-appid',
  'x-api-key',
  'x-signature',
  'x-issued-at',
  'x-request-id',
].join(',');
/**
 * How long a browser may reuse a preflight's answer: a day, Firefox's bound (Chromium keeps one
 * at most 2 hours). The answer depends on nothing but this file.
 */
const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

export const cors: Middleware = async (ctx, next) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  // A browser client must see how long a 429 asks it to wait, and which request it was.
  ctx.set('Access-Control-Expose-Headers', 'Retry-After,X-Request-Id');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Access-Control-Allow-Methods', METHODS);
    ctx.set('Access-Control-Allow-Headers', HEADERS);
    ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    ctx.status = 204;
    return;
  }
  await next();
};
