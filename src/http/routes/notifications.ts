/**
 * GET /accounts/{account}/notifications (seed §4.1, §7.4): an account's notices on every
 * network, newest first, outside the order book's `/{network}/api` prefix. Cacheable for 300 s
 * (seed §8). Without the notifications integration (disabled, or no API key configured) the
 * endpoint is unavailable: 503 `NotificationsDisabled`. A malformed address is a 400
 * `InvalidParameter`; a database failure is the error middleware's 500.
 */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { addressParam } from '../params.js';

const MAX_AGE_SECONDS = 300;

export function notificationsRouter(deps: HttpDeps): Router {
  const router = new Router();

  router.get('/accounts/:account/notifications', async (ctx) => {
    const { enabled, apiKeyConfigured } = deps.notificationsApi;
    if (!enabled || !apiKeyConfigured) {
      throw new ApiError(
        'NotificationsDisabled',
        enabled
          ? 'notifications are not configured on this server: set NOTIFICATIONS_API_KEY'
          : 'notifications are disabled on this server (NOTIFICATIONS_ENABLED=false)',
      );
    }
    const account = addressParam(ctx.params.account!, 'account');
    ctx.body = await deps.queries.notices.byAccount(account);
    ctx.set('Cache-Control', `public, max-age=${MAX_AGE_SECONDS}`);
  });

  return router;
}
