/** The current batch auction (reference §1.1: `GET /api/v1/auction`, public as in its code). */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { NetworkState } from '../network.js';

export function auctionRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  router.get('/api/v1/auction', async (ctx) => {
    const auction = await deps.queries.auctions.latest(ctx.state.network.name);
    if (!auction) throw new ApiError('NotFound', 'no auction has been cut on this network yet');
    ctx.body = auction;
  });
  return router;
}
