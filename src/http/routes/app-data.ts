/** App data: register a document (with or without its hash) and read it back (reference §5). */
import Router, { type RouterContext } from '@koa/router';
import { validators } from '../../../schemas/validators.js';
import type { Hex } from '../../domain/events.js';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonBody } from '../json-body.js';
import type { NetworkState } from '../network.js';
import { hashParam } from '../params.js';
import { rateLimited } from '../rate-limit.js';
import { validated } from '../validate.js';

export function appDataRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  const body = jsonBody(deps.appDataSizeLimit);
  const registrations = rateLimited(deps, 'app-data registrations');

  const register = async (ctx: RouterContext<NetworkState>, expectedHash: Hex | null) => {
    const { fullAppData } = validated(validators.appDataObject, ctx.request.body, 'AppDataInvalid');
    const result = await deps.commands.registerAppData(
      ctx.state.network,
      fullAppData,
      expectedHash,
    );
    await deps.readYourWrites('app-data', result.position);
    ctx.status = result.created ? 201 : 200;
    ctx.body = JSON.stringify(result.hash);
    ctx.type = 'application/json';
  };

  router.put('/api/v1/app_data/:hash', registrations, body, (ctx) =>
    register(ctx, hashParam(ctx.params.hash!, 'app data hash')),
  );
  router.put('/api/v1/app_data', registrations, body, (ctx) => register(ctx, null));

  router.get('/api/v1/app_data/:hash', async (ctx) => {
    const hash = hashParam(ctx.params.hash!, 'app data hash');
    const fullAppData = await deps.queries.appData.byHash(ctx.state.network.name, hash);
    if (fullAppData === null) throw new ApiError('NotFound', 'full app data not found');
    ctx.body = { fullAppData };
  });

  return router;
}
