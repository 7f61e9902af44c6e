/**
 * Operators' endpoints, outside the order book's `/{network}` prefix. Each needs the admin API
 * key (`ADMIN_API_KEY`) in `X-API-Key` or as `Authorization: Bearer <key>`: a missing or wrong
 * key is 401 `Unauthorized`; a server without a key answers 503 `AdminApiDisabled`.
 *
 * - `GET /metrics`: Prometheus text exposition (src/metrics).
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { sameSecret } from '../../bytes/same-secret.js';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';

function presentedKey(ctx: Context): string | null {
  const header = ctx.get('x-api-key');
  if (header) return header;
  const bearer = /^Bearer\s+(.+)$/i.exec(ctx.get('authorization'));
  return bearer ? bearer[1]!.trim() : null;
}

function requireAdminKey(ctx: Context, configured: string | null): void {
  if (configured === null) {
    throw new ApiError(
      'AdminApiDisabled',
      'administrative endpoints are off on this server: set ADMIN_API_KEY',
    );
  }
  const presented = presentedKey(ctx);
  if (presented === null || !sameSecret(configured, presented)) {
    throw new ApiError('Unauthorized', 'send the admin API key in X-API-Key');
  }
}

export function adminRouter(deps: HttpDeps): Router {
  const router = new Router();

  router.get('/metrics', async (ctx) => {
    requireAdminKey(ctx, deps.admin.apiKey);
    const { registry } = deps.admin;
    ctx.body = await registry.metrics();
    ctx.type = registry.contentType;
    ctx.set('Cache-Control', 'no-store');
  });

  return router;
}
