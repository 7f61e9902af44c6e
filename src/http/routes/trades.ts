/** Trades and the orders of a settlement transaction (reference §1.1 rows 7–9, §2). */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { NetworkState } from '../network.js';
import { addressParam, hashParam, integerQuery, uidParam } from '../params.js';
import type { TradeFilter } from '../../queries/trades.js';

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 1000;

/** A query parameter given at most once (a repeated one is malformed, as in the reference). */
function single(value: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(value)) throw new ApiError('InvalidParameter', `${name} is repeated`);
  return value;
}

/**
 * `owner` xor `orderUid`. Malformed values are rejected before the combination is checked,
 * as the reference's query extractor does.
 */
function tradeFilter(query: Record<string, string | string[] | undefined>): TradeFilter {
  const owner = single(query.owner, 'owner');
  const orderUid = single(query.orderUid, 'orderUid');
  const parsedOwner = owner === undefined ? undefined : addressParam(owner, 'owner');
  const parsedUid = orderUid === undefined ? undefined : uidParam(orderUid);
  if (parsedOwner !== undefined && parsedUid === undefined) return { owner: parsedOwner };
  if (parsedUid !== undefined && parsedOwner === undefined) return { orderUid: parsedUid };
  throw new ApiError('InvalidTradeFilter', 'Must specify exactly one of owner or orderUid.');
}

const nowSeconds = (deps: HttpDeps) => Math.floor(deps.clock().getTime() / 1000);

export function tradesRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();

  router.get('/api/v2/trades', async (ctx) => {
    const offset = integerQuery(single(ctx.query.offset, 'offset'), 'offset', 0);
    const limit = integerQuery(single(ctx.query.limit, 'limit'), 'limit', DEFAULT_LIMIT);
    const filter = tradeFilter(ctx.query);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ApiError('InvalidLimit', `limit must be between 1 and ${MAX_LIMIT}`);
    }
    ctx.body = await deps.queries.trades.trades(ctx.state.network.name, filter, offset, limit);
  });

  // Deprecated: every matching trade, no pagination (offset and limit are not read).
  router.get('/api/v1/trades', async (ctx) => {
    const filter = tradeFilter(ctx.query);
    ctx.body = await deps.queries.trades.trades(ctx.state.network.name, filter, 0, null);
  });

  router.get('/api/v1/transactions/:txHash/orders', async (ctx) => {
    const txHash = hashParam(ctx.params.txHash!, 'transaction hash');
    ctx.body = await deps.queries.trades.ordersInTransaction(
      ctx.state.network.name,
      txHash,
      nowSeconds(deps),
    );
  });

  return router;
}
