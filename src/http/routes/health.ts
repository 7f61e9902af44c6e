/**
 * Probes for whoever runs the service: liveness (`GET /healthz`, the process answers at all)
 * and readiness, for the whole service (`GET /ready`) and at the reference's path for one
 * network (`GET /{network}/api/v1/ready`). Readiness answers 503 naming each part that is not
 * ready. Neither needs a key: orchestrators and load balancers probe without one.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { HttpDeps, ReadinessReport } from '../deps.js';
import type { NetworkState } from '../network.js';

function answer(ctx: Context, report: ReadinessReport): void {
  ctx.status = report.ready ? 200 : 503;
  ctx.body = report;
  ctx.set('Cache-Control', 'no-store');
}

export function healthRouter(deps: HttpDeps): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
    ctx.set('Cache-Control', 'no-store');
  });
  router.get('/ready', async (ctx) => answer(ctx, await deps.readiness(null)));
  return router;
}

export function networkReadinessRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  router.get('/api/v1/ready', async (ctx) =>
    answer(ctx, await deps.readiness(ctx.state.network.name)),
  );
  return router;
}
