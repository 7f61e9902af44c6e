/** CORS as the reference answers it: any origin, the order book's methods and headers. */
import type { Middleware } from 'koa';

const METHODS = 'GET,POST,DELETE,OPTIONS,PUT,PATCH,HEAD';
// x-api-key, x-signature and x-issued-at: the subscription routes' credentials.
const HEADERS = 'origin,content-type,x-auth-token,x-appid,x-api-key,x-signature,x-issued-at';

export const cors: Middleware = async (ctx, next) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  // A browser client must see how long a 429 asks it to wait.
  ctx.set('Access-Control-Expose-Headers', 'Retry-After');
  if (ctx.method === 'OPTIONS') {
    ctx.set('Access-Control-Allow-Methods', METHODS);
    ctx.set('Access-Control-Allow-Headers', HEADERS);
    ctx.status = 204;
    return;
  }
  await next();
};
