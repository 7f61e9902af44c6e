/**
 * Every response body of the order and app-data endpoints, checked against the reference's
 * OpenAPI spec (with the documented adjustments of test/support/openapi.ts), for orders in every
 * status reachable without a chain: open, presignaturePending, cancelled (bulk and single
 * DELETE) and expired (the service's clock moved past validTo). Error bodies too.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import { expectMatchesResponse, expectMatchesSchema } from '../../support/openapi.js';
import {
  controlledClock,
  http,
  startTestService,
  type HttpResult,
  type TestService,
} from '../../support/service.js';
import {
  CHAIN_ID,
  appDataHash,
  newWallet,
  presignOrder,
  signCancellation,
  signCancellations,
  signOrder,
  type OrderParams,
  type SignOrderOptions,
  type SignedOrder,
} from '../../support/signing.js';
import { fundedWallet } from '../../support/owners.js';

const CHAIN = CHAIN_ID.devnet;

interface ApiOrder {
  uid: string;
  owner: string;
  status: string;
  invalidated: boolean;
  signingScheme: string;
  signature: string;
  appData: string;
  fullAppData: string | null;
  validTo: number;
  [field: string]: unknown;
}

describe('integration/http: response bodies match the OpenAPI spec', function () {
  this.timeout(60_000);

  const clock = controlledClock();
  let service: TestService;
  let base: string;

  before(async () => {
    service = await startTestService({ clock });
    base = service.devnet;
  });

  after(async () => {
    await service?.stop();
  });

  // validTo follows the service's clock, which the expiry test moves forward.
  const sign = async (
    wallet?: Wallet,
    overrides: Partial<OrderParams> = {},
    scheme: 'eip712' | 'ethsign' = 'eip712',
    options: SignOrderOptions = {},
  ) =>
    signOrder(wallet ?? (await fundedWallet()), CHAIN, overrides, scheme, {
      nowSeconds: clock.nowSeconds(),
      ...options,
    });

  async function place(signed: SignedOrder): Promise<string> {
    const res = await http('POST', `${base}/api/v1/orders`, signed.body);
    expect(res.status, res.text).to.equal(201);
    expectMatchesResponse('post', '/api/v1/orders', 201, res.body);
    expect(res.body).to.equal(signed.uid);
    return signed.uid;
  }

  async function getOrder(uid: string): Promise<ApiOrder> {
    const res = await http<ApiOrder>('GET', `${base}/api/v1/orders/${uid}`);
    expect(res.status, res.text).to.equal(200);
    expectMatchesResponse('get', '/api/v1/orders/{UID}', 200, res.body);
    return res.body;
  }

  async function cancelAll(wallet: Wallet, uids: string[]): Promise<HttpResult> {
    return http('DELETE', `${base}/api/v1/orders`, await signCancellations(wallet, CHAIN, uids));
  }

  function expectCancelled(res: HttpResult): void {
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.equal('Cancelled');
  }

  async function cancelledOrder(): Promise<{ wallet: Wallet; uid: string }> {
    const wallet = await fundedWallet();
    const uid = await place(await sign(wallet));
    expectCancelled(await cancelAll(wallet, [uid]));
    return { wallet, uid };
  }

  async function presignPending(): Promise<{ owner: string; uid: string }> {
    const owner = newWallet().address;
    const signed = presignOrder(owner, CHAIN, {}, { nowSeconds: clock.nowSeconds() });
    return { owner, uid: await place(signed) };
  }

  describe('orders', () => {
    it('POST /api/v1/orders: 201 with the UID, for every accepted body form', async () => {
      const wallet = await fundedWallet();
      await place(await sign(wallet));
      await place(await sign(wallet, { sellAmount: '2' }, 'ethsign'));
      await place(await sign(wallet, { sellAmount: '3' }, 'eip712', { appDataForm: 'full' }));
      // The zero hash resolves to "{}" without registration (reference §5).
      await place(await sign(wallet, { sellAmount: '4', appData: `0x${'00'.repeat(32)}` }));
    });

    it('GET /api/v1/orders/{uid}: an open order', async () => {
      const wallet = await fundedWallet();
      const signed = await sign(wallet);
      const order = await getOrder(await place(signed));
      expect(order).to.include({
        uid: signed.uid,
        owner: signed.owner,
        status: 'open',
        invalidated: false,
        signingScheme: 'eip712',
        signature: (signed.body.signature as string).toLowerCase(),
        appData: signed.appDataHash,
        fullAppData: '{}',
        validTo: signed.order.validTo,
      });
    });

    it('GET /api/v1/orders/{uid}: a presign order is presignaturePending', async () => {
      const { owner, uid } = await presignPending();
      const order = await getOrder(uid);
      expect(order).to.include({
        status: 'presignaturePending',
        invalidated: false,
        signingScheme: 'presign',
        signature: '0x',
        owner: owner.toLowerCase(),
      });
    });

    it('DELETE /api/v1/orders: 200 "Cancelled", then the order is cancelled', async () => {
      const { uid } = await cancelledOrder();
      expect(await getOrder(uid)).to.include({ status: 'cancelled', invalidated: true });
    });

    it('DELETE /api/v1/orders/{uid}: 200 "Cancelled", then the order is cancelled', async () => {
      const wallet = await fundedWallet();
      const uid = await place(await sign(wallet));
      expectCancelled(
        await http(
          'DELETE',
          `${base}/api/v1/orders/${uid}`,
          await signCancellation(wallet, CHAIN, uid),
        ),
      );
      expect(await getOrder(uid)).to.include({ status: 'cancelled', invalidated: true });
    });

    it('GET /api/v1/orders/{uid}: expired once the service clock passes validTo', async () => {
      const wallet = await fundedWallet();
      const uid = await place(await sign(wallet, { validTo: clock.nowSeconds() + 120 }));
      expect(await getOrder(uid)).to.include({ status: 'open' });
      clock.advance(121);
      expect(await getOrder(uid)).to.include({ status: 'expired', invalidated: false });
    });

    it('POST /api/v1/orders/by_uids: an array of {order} for the known UIDs only', async () => {
      const wallet = await fundedWallet();
      const open = await place(await sign(wallet));
      const { uid: cancelled } = await cancelledOrder();
      const { uid: pending } = await presignPending();
      const unknown = `0x${'ab'.repeat(56)}`;

      const res = await http<{ order: ApiOrder }[]>('POST', `${base}/api/v1/orders/by_uids`, [
        open,
        cancelled,
        pending,
        unknown,
      ]);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.be.an('array');
      expectMatchesSchema('OrdersByUidsResult[]', res.body);
      const statuses = Object.fromEntries(res.body.map(({ order }) => [order.uid, order.status]));
      expect(statuses).to.deep.equal({
        [open]: 'open',
        [cancelled]: 'cancelled',
        [pending]: 'presignaturePending',
      });
    });

    it('GET /api/v1/account/{owner}/orders: Order[] of that owner', async () => {
      const wallet = await fundedWallet();
      const open = await place(await sign(wallet));
      const cancelled = await place(await sign(wallet, { sellAmount: '5' }));
      expectCancelled(await cancelAll(wallet, [cancelled]));
      await place(await sign(await fundedWallet()));

      const res = await http<ApiOrder[]>('GET', `${base}/api/v1/account/${wallet.address}/orders`);
      expect(res.status, res.text).to.equal(200);
      expectMatchesResponse('get', '/api/v1/account/{owner}/orders', 200, res.body);
      expect(Object.fromEntries(res.body.map((o) => [o.uid, o.status]))).to.deep.equal({
        [open]: 'open',
        [cancelled]: 'cancelled',
      });

      const empty = await http('GET', `${base}/api/v1/account/${newWallet().address}/orders`);
      expect(empty.status).to.equal(200);
      expect(empty.body).to.deep.equal([]);
    });
  });

  describe('app data', () => {
    const document = () =>
      JSON.stringify({
        appCode: 'openapi-shapes',
        metadata: {},
        version: '1.3.0',
        n: Math.random(),
      });

    it('PUT /api/v1/app_data/{hash}: 201 then 200, both with the hash; GET returns the document', async () => {
      const fullAppData = document();
      const hash = appDataHash(fullAppData);
      const first = await http('PUT', `${base}/api/v1/app_data/${hash}`, { fullAppData });
      expect(first.status, first.text).to.equal(201);
      expectMatchesResponse('put', '/api/v1/app_data/{app_data_hash}', 201, first.body);
      expect(first.body).to.equal(hash);

      const again = await http('PUT', `${base}/api/v1/app_data/${hash}`, { fullAppData });
      expect(again.status, again.text).to.equal(200);
      expectMatchesResponse('put', '/api/v1/app_data/{app_data_hash}', 200, again.body);
      expect(again.body).to.equal(hash);

      const read = await http('GET', `${base}/api/v1/app_data/${hash}`);
      expect(read.status, read.text).to.equal(200);
      expectMatchesResponse('get', '/api/v1/app_data/{app_data_hash}', 200, read.body);
      expect(read.body).to.deep.equal({ fullAppData });
    });

    it('PUT /api/v1/app_data: 201 with the computed hash', async () => {
      const fullAppData = document();
      const res = await http('PUT', `${base}/api/v1/app_data`, { fullAppData });
      expect(res.status, res.text).to.equal(201);
      expectMatchesResponse('put', '/api/v1/app_data', 201, res.body);
      expect(res.body).to.equal(appDataHash(fullAppData));
    });
  });

  describe('error bodies', () => {
    async function postError(body: unknown, errorType: string): Promise<void> {
      const res = await http<{ errorType: string }>('POST', `${base}/api/v1/orders`, body);
      expect(res.status, res.text).to.equal(400);
      expectMatchesResponse('post', '/api/v1/orders', 400, res.body);
      expect(res.body.errorType).to.equal(errorType);
    }

    it('POST /api/v1/orders 400s are OrderPostError', async () => {
      const wallet = await fundedWallet();
      const placed = await sign(wallet);
      await place(placed);
      await postError(placed.body, 'DuplicatedOrder');
      await postError((await sign(wallet, { sellAmount: '0' })).body, 'ZeroAmount');
      await postError(
        (await sign(wallet, { validTo: clock.nowSeconds() + 10 })).body,
        'InsufficientValidTo',
      );
      await postError(
        (await sign(wallet, { appData: `0x${'42'.repeat(32)}` })).body,
        'InvalidAppData',
      );
      await postError(
        (await sign(wallet, {}, 'eip712', { body: { appDataHash: `0x${'42'.repeat(32)}` } })).body,
        'AppDataHashMismatch',
      );
      // The seed (§7.2) names a wrong signer InvalidSignature; the reference says WrongOwner.
      await postError(
        (await sign(wallet, {}, 'eip712', { from: newWallet().address })).body,
        'InvalidSignature',
      );
    });

    async function cancelError(res: HttpResult, status: number, errorType: string): Promise<void> {
      expect(res.status, res.text).to.equal(status);
      if (status === 400) expectMatchesResponse('delete', '/api/v1/orders', 400, res.body);
      expectMatchesSchema('OrderCancellationError', res.body);
      expect((res.body as { errorType: string }).errorType).to.equal(errorType);
    }

    it('DELETE /api/v1/orders errors are OrderCancellationError', async () => {
      const wallet = await fundedWallet();
      const uid = await place(await sign(wallet));
      await cancelError(await cancelAll(newWallet(), [uid]), 401, 'WrongOwner');
      await cancelError(await cancelAll(wallet, [`0x${'cd'.repeat(56)}`]), 404, 'OrderNotFound');
      const { wallet: owner, uid: cancelled } = await cancelledOrder();
      await cancelError(await cancelAll(owner, [cancelled]), 400, 'AlreadyCancelled');
      const { uid: pending } = await presignPending();
      await cancelError(await cancelAll(wallet, [pending]), 400, 'OnChainOrder');
      const malformed = {
        orderUids: [uid],
        signature: `0x${'00'.repeat(65)}`,
        signingScheme: 'eip712',
      };
      await cancelError(
        await http('DELETE', `${base}/api/v1/orders`, malformed),
        400,
        'InvalidSignature',
      );
      expect(await getOrder(uid)).to.include({ status: 'open' });
    });

    it('DELETE /api/v1/orders/{uid} of an expired order is OrderExpired', async () => {
      const wallet = await fundedWallet();
      const uid = await place(await sign(wallet, { validTo: clock.nowSeconds() + 90 }));
      clock.advance(91);
      const res = await http(
        'DELETE',
        `${base}/api/v1/orders/${uid}`,
        await signCancellation(wallet, CHAIN, uid),
      );
      await cancelError(res, 400, 'OrderExpired');
    });

    it('GET /api/v1/orders/{uid} of an unknown order: 404 NotFound', async () => {
      const res = await http<{ errorType: string; description: string }>(
        'GET',
        `${base}/api/v1/orders/0x${'ef'.repeat(56)}`,
      );
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({ errorType: 'NotFound', description: 'Order was not found' });
    });
  });
});
