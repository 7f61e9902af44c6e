/**
 * The Koa application: error envelopes and CORS first, then one router per API area under
 * `/{network}`. Unknown paths get a JSON 404, wrong methods a 405.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { cors } from './cors.js';
import type { HttpDeps } from './deps.js';
import { ApiError, errorMiddleware } from './errors.js';
import { resolveNetwork, type NetworkState } from './network.js';
import { adminRouter } from './routes/admin.js';
import { appDataRouter } from './routes/app-data.js';
import { auctionRouter } from './routes/auction.js';
import { competitionRouter } from './routes/competition.js';
import { metaRouter } from './routes/meta.js';
import { notificationsRouter } from './routes/notifications.js';
import { ordersRouter } from './routes/orders.js';
import { quotesRouter } from './routes/quotes.js';
import { subscriptionsRouter } from './routes/subscriptions.js';
import { tokensRouter } from './routes/tokens.js';
import { tradesRouter } from './routes/trades.js';

export function createHttpApp(deps: HttpDeps): Koa {
  const app = new Koa();
  app.proxy = true;
  app.use(deps.admin.metrics.http);
  app.use(errorMiddleware(deps.logger));
  app.use(cors);

  const perNetwork = new Router<NetworkState>({ prefix: '/:network' });
  perNetwork.use(resolveNetwork(deps.liveNetworks));
  for (const area of [
    ordersRouter(deps),
    quotesRouter(deps),
    auctionRouter(deps),
    appDataRouter(deps),
    metaRouter(deps),
    tradesRouter(deps),
    competitionRouter(deps),
  ]) {
    perNetwork.use(area.routes());
  }
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new ApiError(404, 'NotFound', `no route for ${ctx.method} ${ctx.path}`);
    }
  });
  // The token endpoints live outside the order book's `/{network}` prefix: `/{chainId}/tokens`.
  app.use(tokensRouter(deps).routes());
  // An account's delivery channels, on every network: `/accounts/{account}/subscriptions`.
  app.use(subscriptionsRouter(deps).routes());
  // An account's notices, on every network: `/accounts/{account}/notifications`.
  app.use(notificationsRouter(deps).routes());
  // Operators' endpoints (`/metrics`), behind the admin API key.
  app.use(adminRouter(deps).routes());
  app.use(perNetwork.routes());
  app.use(
    perNetwork.allowedMethods({
      throw: true,
      methodNotAllowed: () =>
        new ApiError(405, 'MethodNotAllowed', 'method not allowed on this path'),
      notImplemented: () => new ApiError(501, 'NotImplemented', 'method not implemented'),
    }),
  );
  return app;
}
