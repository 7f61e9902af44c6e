/** Orders: submit, read, list and cancel (reference §1.1 rows 1–5 and 11). */
import Router from '@koa/router';
import type { OrderUid } from '../../domain/events.js';
import { validators } from '../../../schemas/validators.js';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { jsonBody } from '../json-body.js';
import type { NetworkState } from '../network.js';
import { addressParam, integerQuery, uidParam } from '../params.js';
import { rateLimited } from '../rate-limit.js';
import { validated } from '../validate.js';
import { timedStage, timedStep } from '../../metrics/stage-timings.js';

const BODY_LIMIT = 16 * 1024;
const MAX_UIDS = 128;

const nowSeconds = (deps: HttpDeps) => Math.floor(deps.clock().getTime() / 1000);

export function ordersRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();

  router.post('/api/v1/orders', rateLimited(deps, 'orders'), jsonBody(BODY_LIMIT), async (ctx) => {
    const body = timedStep('order: schema validation', () =>
      validated(validators.orderCreation, ctx.request.body),
    );
    const placed = await timedStage('order: command', () =>
      deps.commands.placeOrder(ctx.state.network, body),
    );
    await timedStage('order: read-your-writes wait', () =>
      Promise.all([
        deps.readYourWrites('orders', placed.position),
        placed.appDataPosition && deps.readYourWrites('app-data', placed.appDataPosition),
      ]),
    );
    ctx.status = 201;
    ctx.body = JSON.stringify(placed.uid);
    ctx.type = 'application/json';
  });

  router.get('/api/v1/orders/:uid', async (ctx) => {
    const uid = uidParam(ctx.params.uid!);
    const order = await deps.queries.orders.byUid(ctx.state.network.name, uid, nowSeconds(deps));
    if (!order) throw new ApiError('NotFound', 'Order was not found');
    ctx.body = order;
  });

  // Every ledger event concerning the order, in ledger order (src/queries/order-history.ts).
  router.get('/api/v1/orders/:uid/events', async (ctx) => {
    const uid = uidParam(ctx.params.uid!);
    const network = ctx.state.network.name;
    const order = await deps.queries.orders.byUid(network, uid, nowSeconds(deps));
    if (!order) throw new ApiError('NotFound', 'Order was not found');
    ctx.body = await deps.queries.orderHistory.history(network, uid, {
      creationDate: order.creationDate,
      validTo: order.validTo,
      expired: order.status === 'expired',
    });
  });

  router.post('/api/v1/orders/by_uids', jsonBody(BODY_LIMIT), async (ctx) => {
    if (Array.isArray(ctx.request.body) && ctx.request.body.length > MAX_UIDS) {
      throw new ApiError(
        'InvalidParameter',
        `Request exceeds maximum number of order UIDs of ${MAX_UIDS}`,
      );
    }
    const uids = validated(validators.orderUids, ctx.request.body).map(uidParam);
    const orders = await deps.queries.orders.byUids(
      ctx.state.network.name,
      [...new Set(uids)],
      nowSeconds(deps),
    );
    ctx.body = orders.map((order) => ({ order }));
  });

  router.get('/api/v1/account/:owner/orders', async (ctx) => {
    const owner = addressParam(ctx.params.owner!, 'owner');
    const offset = integerQuery(ctx.query.offset, 'offset', 0);
    const limit = integerQuery(ctx.query.limit, 'limit', 10);
    if (limit < 1 || limit > 1000) {
      throw new ApiError('LIMIT_OUT_OF_BOUNDS', 'The pagination limit is [1,1000].');
    }
    ctx.body = await deps.queries.orders.byOwner(
      ctx.state.network.name,
      owner,
      offset,
      limit,
      nowSeconds(deps),
    );
  });

  const cancellations = rateLimited(deps, 'cancellations');
  router.delete('/api/v1/orders', cancellations, jsonBody(BODY_LIMIT), async (ctx) => {
    const body = validated(validators.orderCancellations, ctx.request.body);
    // As signed, duplicates included: the signature covers the list exactly as sent.
    const uids = body.orderUids.map(uidParam);
    await cancel(deps, ctx.state.network, uids, body.signature, body.signingScheme, 'bulk');
    ctx.body = JSON.stringify('Cancelled');
    ctx.type = 'application/json';
  });

  router.delete('/api/v1/orders/:uid', cancellations, jsonBody(BODY_LIMIT), async (ctx) => {
    const uid = uidParam(ctx.params.uid!);
    const body = validated(validators.orderCancellation, ctx.request.body);
    await cancel(deps, ctx.state.network, [uid], body.signature, body.signingScheme, 'single');
    ctx.body = JSON.stringify('Cancelled');
    ctx.type = 'application/json';
  });

  return router;
}

async function cancel(
  deps: HttpDeps,
  network: NetworkState['network'],
  uids: OrderUid[],
  signature: string,
  signingScheme: 'eip712' | 'ethsign',
  form: 'bulk' | 'single',
): Promise<void> {
  const { position } = await deps.commands.cancelOrders(network, {
    uids,
    signature: signature.toLowerCase() as `0x${string}`,
    signingScheme,
    form,
  });
  await deps.readYourWrites('orders', position);
}
