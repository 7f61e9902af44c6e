/**
 * The token endpoints, outside the order book's `/{network}/api` prefix (seed §4.1):
 * GET /{chainId}/tokens/{token}/usdPrice and /topHolders. `chainId` is a chain id, a network
 * name or an alias (1, mainnet, ethereum, 100, xdai, gnosis, …); the token is an address in any
 * case with or without `0x`, or `-` for the native token. Their errors are `{message}` (seed
 * §2.8), not the order book's `{errorType, description}`: this router renders its own.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { ErrorType } from '../../domain/errors.js';
import type { Address } from '../../domain/events.js';
import { NATIVE_TOKEN_MARKER, networkByChainRef, type Network } from '../../domain/networks.js';
import type { HttpDeps } from '../deps.js';
import { clientCaused, logFailure, toApiError } from '../errors.js';
import { pathAddress } from '../params.js';
import { rateLimited } from '../rate-limit.js';

/** A token endpoint's refusal: its status, and the message of its `{message}` body. */
class TokenEndpointError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'TokenEndpointError';
  }
}

/**
 * Pool reserves change with every block. 30 s lets clients and caches share an answer across a
 * couple of mainnet blocks (about 12 s each) without serving a price much older than the chain.
 */
const USD_PRICE_MAX_AGE_SECONDS = 30;
const DEFAULT_HOLDERS = 10;
const MAX_HOLDERS = 100;

/**
 * Where the token API (reference §2.8) answers otherwise than the order book: a network without
 * an RPC, and a token without a price, are "not found" here.
 */
const TOKEN_API_STATUS: Partial<Readonly<Record<ErrorType, number>>> = {
  NetworkNotLive: 404,
  NoLiquidity: 404,
};

function messageErrors(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof TokenEndpointError) {
        ctx.status = error.status;
        ctx.body = { message: error.message };
        return;
      }
      // Everything else as the order book sees it (a database outage is its 503), in this shape.
      const api = toApiError(error);
      const status = api ? (TOKEN_API_STATUS[api.errorType] ?? api.status) : 500;
      if (!api || !clientCaused(status)) logFailure(logger, ctx, error, api);
      ctx.status = status;
      ctx.body = { message: api?.description ?? 'internal error' };
    }
  };
}

function networkParam(ref: string): Network {
  const network = networkByChainRef(ref);
  if (!network) throw new TokenEndpointError(400, `unknown chain ${JSON.stringify(ref)}`);
  return network;
}

/** An address in any form, or `native` for `-` (and the native-token marker address). */
function tokenParam(value: string): Address | 'native' {
  if (value === '-') return 'native';
  const address = pathAddress(value);
  if (!address) throw new TokenEndpointError(400, `not a token address: ${JSON.stringify(value)}`);
  return address === NATIVE_TOKEN_MARKER ? 'native' : address;
}

function limitQuery(value: unknown): number {
  if (value === undefined) return DEFAULT_HOLDERS;
  const limit = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : 0;
  if (limit < 1 || limit > MAX_HOLDERS) {
    throw new TokenEndpointError(400, `limit must be a whole number from 1 to ${MAX_HOLDERS}`);
  }
  return limit;
}

export function tokensRouter(deps: HttpDeps): Router {
  const router = new Router();
  router.use(messageErrors(deps.logger));

  const usdPricePath = '/:chainId/tokens/:token/usdPrice';
  const topHoldersPath = '/:chainId/tokens/:token/topHolders';

  router.get(usdPricePath, rateLimited(deps, 'prices'), async (ctx) => {
    const network = networkParam(ctx.params.chainId!);
    const token = tokenParam(ctx.params.token!);
    // The native currency is worth what its wrapped token is.
    const priced = token === 'native' ? network.wrappedNativeToken : token;
    ctx.body = await deps.commands.usdPrice(network, priced);
    ctx.set('Cache-Control', `public, max-age=${USD_PRICE_MAX_AGE_SECONDS}`);
  });

  router.get(topHoldersPath, async (ctx) => {
    const network = networkParam(ctx.params.chainId!);
    const token = tokenParam(ctx.params.token!);
    const limit = limitQuery(ctx.query.limit);
    if (token === 'native') {
      throw new TokenEndpointError(
        404,
        `holders of ${network.label}'s native currency are not indexed: its balances are not logs`,
      );
    }
    if (!deps.liveNetworks.has(network.name)) {
      throw new TokenEndpointError(
        404,
        `${network.label} is not live on this server: set ${network.rpcUrlVariable} to its RPC URL`,
      );
    }
    const holders = await deps.queries.tokenHolders.top(network.name, token, limit);
    if (holders === null) {
      throw new TokenEndpointError(
        404,
        `holders of ${token} are not indexed on ${network.label}: only tokens the book trades are`,
      );
    }
    if (holders.length === 0) {
      throw new TokenEndpointError(404, `no holders of ${token} on ${network.label} yet`);
    }
    ctx.body = holders;
  });

  // These paths know their method: any other is a 405, in these endpoints' `{message}` shape.
  for (const path of [usdPricePath, topHoldersPath]) {
    router.all(path, () => {
      throw new TokenEndpointError(405, 'method not allowed on this path');
    });
  }
  return router;
}
