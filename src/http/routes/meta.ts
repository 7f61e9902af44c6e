/** Service metadata: the version string (text/plain, like the reference). */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import type { NetworkState } from '../network.js';

export function metaRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  router.get('/api/v1/version', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = deps.version;
  });
  return router;
}
