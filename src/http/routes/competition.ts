/**
 * The solver competition (reference §1.1 rows 16–18, plus the seed's v1 path), an order's
 * competition status (row 6) and a user's total surplus (row 23).
 */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { NetworkState } from '../network.js';
import { addressParam, hashParam, uidParam } from '../params.js';
import type { CompetitionSelector } from '../../queries/competitions.js';

const U64_MAX = 2n ** 64n - 1n;

/**
 * An auction id as the reference parses it: a u64, else 400. Ids are JSON numbers handed out by
 * a sequence, so one beyond the safe integers names no auction (null).
 */
function auctionIdParam(value: string): number | null {
  if (!/^[0-9]{1,20}$/.test(value) || BigInt(value) > U64_MAX) {
    throw new ApiError('InvalidParameter', `auction id is not valid: ${JSON.stringify(value)}`);
  }
  const id = BigInt(value);
  return id > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(id);
}

const notFound = () => new ApiError('NotFound', 'no competition found');

export function competitionRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  const { competitions } = deps.queries;

  const serve = async (network: string, selector: CompetitionSelector | null) => {
    const competition = selector && (await competitions.competition(network, selector));
    if (!competition) throw notFound();
    return competition;
  };
  // `latest` and `by_tx_hash` before `:auctionId`, which would take them for (bad) ids.
  router.get('/api/v2/solver_competition/latest', async (ctx) => {
    ctx.body = await serve(ctx.state.network.name, 'latest');
  });
  router.get('/api/v2/solver_competition/by_tx_hash/:txHash', async (ctx) => {
    const txHash = hashParam(ctx.params.txHash!, 'transaction hash');
    ctx.body = await serve(ctx.state.network.name, { txHash });
  });
  // v1 is the seed spec's path (the reference only registers v2 now): the same body.
  router.get(
    ['/api/v2/solver_competition/:auctionId', '/api/v1/solver_competition/:auctionId'],
    async (ctx) => {
      const id = auctionIdParam(ctx.params.auctionId!);
      ctx.body = await serve(ctx.state.network.name, id === null ? null : { auctionId: id });
    },
  );

  router.get('/api/v1/orders/:uid/status', async (ctx) => {
    const uid = uidParam(ctx.params.uid!);
    const status = await competitions.orderStatus(ctx.state.network.name, uid, deps.clock());
    if (!status) throw new ApiError('NotFound', 'order status not found');
    ctx.body = status;
  });

  router.get('/api/v1/users/:address/total_surplus', async (ctx) => {
    const owner = addressParam(ctx.params.address!);
    ctx.body = { totalSurplus: await competitions.totalSurplus(ctx.state.network.name, owner) };
  });

  return router;
}
