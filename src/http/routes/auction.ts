/**
 * The current batch auction (reference §1.1: `GET /api/v1/auction`, public as in its code), and
 * the network's recent ones (`GET /api/v1/auctions?limit=`, batchbook's own: the reference lists
 * no auctions), each to be read whole at `/solver_competition/{id}`.
 */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { NetworkState } from '../network.js';
import { integerQuery } from '../params.js';

const MAX_RECENT = 100;

export function auctionRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  router.get('/api/v1/auction', async (ctx) => {
    const auction = await deps.queries.auctions.latest(ctx.state.network.name);
    if (!auction) throw new ApiError('NotFound', 'no auction has been cut on this network yet');
    ctx.body = auction;
  });
  router.get('/api/v1/auctions', async (ctx) => {
    const limit = integerQuery(ctx.query.limit, 'limit', 10);
    if (limit < 1 || limit > MAX_RECENT) {
      throw new ApiError('InvalidLimit', `limit must be within [1,${MAX_RECENT}]`);
    }
    ctx.body = await deps.queries.auctions.recent(ctx.state.network.name, limit);
  });
  return router;
}
