/** Quotes and native prices (reference §1.1 rows 12 and 14). */
import Router from '@koa/router';
import { validators } from '../../../schemas/validators.js';
import { Rejection } from '../../commands/rejection.js';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonBody } from '../json-body.js';
import type { NetworkState } from '../network.js';
import { addressParam } from '../params.js';
import { rateLimited } from '../rate-limit.js';
import { validated } from '../validate.js';

const BODY_LIMIT = 16 * 1024;

export function quotesRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();

  router.post('/api/v1/quote', rateLimited(deps, 'quotes'), jsonBody(BODY_LIMIT), async (ctx) => {
    const body = validated(validators.orderQuote, ctx.request.body);
    ctx.body = await deps.commands.createQuote(ctx.state.network, body);
  });

  router.get('/api/v1/token/:token/native_price', rateLimited(deps, 'prices'), async (ctx) => {
    const token = addressParam(ctx.params.token!, 'token');
    try {
      ctx.body = await deps.commands.nativePrice(ctx.state.network, token);
    } catch (error) {
      // An unpriced token is "not found" here (reference), where a quote without a route is a
      // 400 (seed §7.1).
      if (error instanceof Rejection && error.errorType === 'NoLiquidity') {
        throw new ApiError(error.errorType, error.description, undefined, 404);
      }
      throw error;
    }
  });

  return router;
}
