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
import { requestLog } from './request-log.js';
import { adminRouter } from './routes/admin.js';
import { appDataRouter } from './routes/app-data.js';
import { auctionRouter } from './routes/auction.js';
import { competitionRouter } from './routes/competition.js';
import { docsRouter } from './routes/docs.js';
import { healthRouter, networkReadinessRouter } from './routes/health.js';
import { liveRouter } from './routes/live.js';
import { metaRouter } from './routes/meta.js';
import { notificationsRouter } from './routes/notifications.js';
import { ordersRouter } from './routes/orders.js';
import { quotesRouter } from './routes/quotes.js';
import { subscriptionsRouter } from './routes/subscriptions.js';
import { tokensRouter } from './routes/tokens.js';
import { tradesRouter } from './routes/trades.js';
import { webAppRouter } from './routes/web-app.js';

export function createHttpApp(deps: HttpDeps): Koa {
  const app = new Koa();
  // The caller's IP (`ctx.ip`, what rate limits count by) is the X-Forwarded-For entry the
  // outermost trusted proxy appended; entries before it are the client's to write.
  app.proxy = deps.trustedProxies > 0;
  app.maxIpsCount = deps.trustedProxies;
  app.use(requestLog({ logger: deps.logger, accessLog: deps.accessLog }));
  app.use(deps.requestMetrics);
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
    networkReadinessRouter(deps),
    liveRouter(deps),
  ]) {
    perNetwork.use(area.routes());
  }
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new ApiError('NotFound', `no route for ${ctx.method} ${ctx.path}`);
    }
  });
  // The routers below run only for their own paths (`within`), the `/{network}` one for any.
  // The token endpoints live outside the order book's `/{network}` prefix: `/{chainId}/tokens`.
  app.use(within(/^\/[^/]+\/tokens\//i, tokensRouter(deps)));
  // An account's delivery channels, on every network: `/accounts/{account}/subscriptions`.
  app.use(within(/^\/accounts\//i, subscriptionsRouter(deps)));
  // An account's notices, on every network: `/accounts/{account}/notifications`.
  app.use(within(/^\/accounts\//i, notificationsRouter(deps)));
  // Liveness and readiness probes, open to all.
  app.use(within(/^\/(healthz|ready)\/?$/i, healthRouter(deps)));
  // The web app: its page and its assets, on the API's origin.
  app.use(within(/^\/(index\.html)?$|^\/assets\/[^/]+$/i, webAppRouter()));
  // Operators' endpoints (`/metrics`), behind the admin API key.
  app.use(within(/^\/metrics\/?$/i, adminRouter(deps)));
  // The API described: `/openapi.json` and its reference page, `/docs`.
  app.use(within(/^\/(openapi\.json|docs)(\/|$)/i, docsRouter(deps)));
  // Not gated: it sees every request the routers above leave, as before, so `allowedMethods`
  // below answers as it did (405 for another method on any router's path, 501 for an unknown one).
  app.use(perNetwork.routes());
  app.use(
    perNetwork.allowedMethods({
      throw: true,
      methodNotAllowed: () => new ApiError('MethodNotAllowed', 'method not allowed on this path'),
      notImplemented: () => new ApiError('NotImplemented', 'method not implemented'),
    }),
  );
  return app;
}

/**
 * A router's routes, run only for the paths in `area`: a case-insensitive pattern, like the
 * routers' own. A router otherwise reads `ctx.host` and tests every one of its layers on every
 * request, whichever router the path belongs to: a measurable share of a cheap request's cost.
 * Skipping a router none of whose routes matches the path changes nothing else: its middleware
 * runs only when one of its routes matches, and the methods `allowedMethods` offers come from
 * the route layers that match the path. So `area` must hold every path the router's routes
 * match; a route outside it stops the start.
 */
function within(area: RegExp, router: Router): ReturnType<Router['routes']> {
  for (const layer of router.stack) {
    // A path with each parameter filled in, e.g. `/x/tokens/x/usdPrice`.
    const sample = typeof layer.path === 'string' ? layer.path.replace(/:\w+/g, 'x') : null;
    if (layer.methods.length > 0 && (sample === null || !area.test(sample))) {
      throw new Error(`route ${String(layer.path)} lies outside its router's area ${String(area)}`);
    }
  }
  const routes = router.routes();
  const gated: ReturnType<Router['routes']> = (ctx, next) =>
    area.test(ctx.path) ? routes(ctx, next) : next();
  // As on `routes()` itself: what is served can be read off the app's middleware.
  return Object.assign(gated, { router });
}
