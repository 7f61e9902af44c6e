import { expect } from 'chai';
import { createOrderQueries } from '../../../src/queries/orders.js';
import {
  address,
  hex,
  orderCancelled,
  orderPlaced,
  preSignatureSet,
  SETTLEMENT,
  tradeSettled,
} from './fixtures.js';
import { suiteProjectedDatabase } from './projected-database.js';

const NOW = 1_800_000_000;

/** A quote an order links, for these amounts. */
const linkedQuote = (amounts: { sellAmount: string; buyAmount: string; feeAmount: string }) => ({
  id: 1,
  gasAmount: '1',
  gasPrice: '1',
  sellTokenPrice: '1',
  ...amounts,
  solver: address(3),
  verified: false,
  metadata: {},
});

describe('orders read model', () => {
  const {
    project,
    queries: orders,
    database,
    engine,
  } = suiteProjectedDatabase(['orders'], createOrderQueries);

  it('serves a placed order in the API shape', async () => {
    const placed = orderPlaced(1, {
      fullAppData: '{"metadata":{"validFrom":1700000000}}',
      quoteId: 7,
      quote: {
        id: 7,
        gasAmount: '150000',
        gasPrice: '15000000000',
        sellTokenPrice: '0.0004',
        sellAmount: '1000000000000000000000',
        buyAmount: '2100',
        feeAmount: '1234',
        solver: address(7),
        verified: true,
        metadata: { version: '1.0', interactions: [] },
      },
      interactions: {
        pre: [{ target: address(9), value: '0', callData: '0xdeadbeef' }],
        post: [],
      },
    });
    await project('OrderPlaced', placed);
    const order = await orders().byUid('mainnet', placed.uid, NOW);
    expect(order).to.deep.equal({
      creationDate: '2025-01-01T00:00:01.000Z',
      class: 'limit',
      owner: placed.owner,
      uid: placed.uid,
      availableBalance: null,
      executedSellAmount: '0',
      executedSellAmountBeforeFees: '0',
      executedBuyAmount: '0',
      executedFeeAmount: '0',
      invalidated: false,
      status: 'open',
      isLiquidityOrder: false,
      executedFee: '0',
      executedFeeToken: placed.order.sellToken,
      fullAppData: '{"metadata":{"validFrom":1700000000}}',
      validFrom: 1700000000,
      settlementContract: SETTLEMENT,
      quote: {
        gasAmount: '150000',
        gasPrice: '15000000000',
        sellTokenPrice: '0.0004',
        sellAmount: '1000000000000000000000',
        buyAmount: '2100',
        feeAmount: '1234',
        solver: address(7),
        verified: true,
        metadata: null,
      },
      sellToken: placed.order.sellToken,
      buyToken: placed.order.buyToken,
      receiver: null,
      sellAmount: '1000000000000000000000',
      buyAmount: '2000',
      validTo: 2_000_000_000,
      appData: hex(0xabc, 32),
      feeAmount: '0',
      kind: 'sell',
      partiallyFillable: false,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      signingScheme: 'eip712',
      signature: placed.signature,
      interactions: placed.interactions,
    });
    // The account list leaves the quote out, as the reference's does.
    const [listed] = await orders().byOwner('mainnet', placed.owner, 0, 10, NOW);
    expect(listed).to.not.have.property('quote');
    expect(await orders().byUid('gnosis', placed.uid, NOW)).to.equal(null);
  });

  it('derives status at read time: open until validTo, expired strictly after', async () => {
    const placed = orderPlaced(2, { order: { ...orderPlaced(2).order, validTo: NOW } });
    await project('OrderPlaced', placed);
    expect((await orders().byUid('mainnet', placed.uid, NOW))!.status).to.equal('open');
    expect((await orders().byUid('mainnet', placed.uid, NOW + 1))!.status).to.equal('expired');
  });

  it('follows pre-signatures by chain coordinates: pending, open, revoked', async () => {
    const placed = orderPlaced(3, { signingScheme: 'presign', signature: '0x' });
    const status = async () => (await orders().byUid('mainnet', placed.uid, NOW))!.status;
    await project('OrderPlaced', placed);
    expect(await status()).to.equal('presignaturePending');
    await project('PreSignatureSet', preSignatureSet(placed, true, 10, 5));
    expect(await status()).to.equal('open');
    // An older log appended late (a re-read) does not override the newer one.
    await project('PreSignatureSet', preSignatureSet(placed, false, 10, 4));
    expect(await status()).to.equal('open');
    await project('PreSignatureSet', preSignatureSet(placed, false, 11, 0));
    expect(await status()).to.equal('presignaturePending');
  });

  it('accumulates partial fills, and fulfilled beats cancelled', async () => {
    const placed = orderPlaced(4, {
      order: { ...orderPlaced(4).order, sellAmount: '1000', partiallyFillable: true },
    });
    const byUid = async () => (await orders().byUid('mainnet', placed.uid, NOW))!;
    await project('OrderPlaced', placed);
    await project('TradeSettled', tradeSettled(placed, { sell: 400n, buy: 800n }, 100, 1));
    await project(
      'TradeSettled',
      tradeSettled(placed, { sell: 350n, buy: 700n, fee: 50n }, 101, 1),
    );
    let order = await byUid();
    expect(order).to.include({
      status: 'open',
      executedSellAmount: '750',
      executedSellAmountBeforeFees: '700',
      executedBuyAmount: '1500',
      executedFeeAmount: '50',
      executedFee: '50',
    });
    await project('OrderCancelled', orderCancelled(placed, 'api'));
    order = await byUid();
    expect(order).to.include({ status: 'cancelled', invalidated: true });
    await project('TradeSettled', tradeSettled(placed, { sell: 300n, buy: 600n }, 102, 1));
    order = await byUid();
    expect(order).to.include({
      status: 'fulfilled',
      invalidated: true,
      executedSellAmount: '1050',
    });
  });

  it('shows the quote metadata once the order can no longer trade', async () => {
    const quote = linkedQuote({ sellAmount: '1', buyAmount: '1', feeAmount: '1' });
    const placed = orderPlaced(5, { quote: { ...quote, metadata: { route: 'x' } }, quoteId: 1 });
    await project('OrderPlaced', placed);
    await project('OrderCancelled', orderCancelled(placed, 'chain'));
    const order = (await orders().byUid('mainnet', placed.uid, NOW))!;
    expect(order.status).to.equal('cancelled');
    expect(order.quote!.metadata).to.deep.equal({ route: 'x' });
  });

  it('keeps the receiver as signed and marks liquidity orders', async () => {
    const placed = orderPlaced(6, {
      class: 'liquidity',
      order: { ...orderPlaced(6).order, receiver: address(55), kind: 'buy' },
    });
    await project('OrderPlaced', placed);
    const order = (await orders().byUid('mainnet', placed.uid, NOW))!;
    expect(order).to.include({ receiver: address(55), isLiquidityOrder: true, class: 'liquidity' });
    expect(order).to.not.have.property('validFrom');
  });

  it('finds several orders by uid, leaving unknown ones out', async () => {
    const a = orderPlaced(7);
    const b = orderPlaced(8);
    await project('OrderPlaced', a);
    await project('OrderPlaced', b);
    const found = await orders().byUids(
      'mainnet',
      [a.uid, b.uid, orderPlaced(999).uid, a.uid],
      NOW,
    );
    expect(found.map((o) => o.uid).sort()).to.deep.equal([a.uid, b.uid].sort());
    expect(await orders().byUids('mainnet', [], NOW)).to.deep.equal([]);
  });

  it('pages an account newest first', async () => {
    const owner = address(42);
    const placed = [3, 1, 4, 2, 5].map((second, i) =>
      orderPlaced(100 + i, {
        owner,
        creationDate: new Date(Date.UTC(2025, 5, 1, 0, 0, second)).toISOString(),
      }),
    );
    for (const p of placed) await project('OrderPlaced', p);
    await project('OrderPlaced', orderPlaced(200, { owner: address(43) }));
    const page = async (offset: number, limit: number) =>
      (await orders().byOwner('mainnet', owner, offset, limit, NOW)).map((o) => o.creationDate);
    expect(await page(0, 2)).to.deep.equal([
      '2025-06-01T00:00:05.000Z',
      '2025-06-01T00:00:04.000Z',
    ]);
    expect(await page(2, 2)).to.deep.equal([
      '2025-06-01T00:00:03.000Z',
      '2025-06-01T00:00:02.000Z',
    ]);
    expect(await page(4, 2)).to.deep.equal(['2025-06-01T00:00:01.000Z']);
    expect(await page(5, 2)).to.deep.equal([]);
  });

  it('counts each owner’s live limit orders outside the market, the owners asking at once together', async () => {
    const quote = linkedQuote({
      sellAmount: '1000000000000000000000',
      buyAmount: '2100',
      feeAmount: '0',
    });
    const [alice, bob, carol] = [address(61), address(62), address(63)];
    // Asking 3000 where the quote gave 2100 is outside the market; asking 2000 is not.
    const limit = (n: number, owner: typeof alice, buyAmount: string) =>
      orderPlaced(n, { owner, quote, order: { ...orderPlaced(n).order, buyAmount } });
    const outside = [limit(60, alice, '3000'), limit(61, alice, '3000'), limit(62, bob, '3000')];
    for (const placed of [...outside, limit(63, alice, '2000'), limit(64, carol, '2000')]) {
      await project('OrderPlaced', placed);
    }
    await project('OrderCancelled', orderCancelled(outside[1]!, 'api'));

    const counted = await Promise.all(
      [alice, bob, carol].map((owner) =>
        orders().liveOutsideMarketLimitOrders('mainnet', owner, NOW),
      ),
    );
    expect(counted).to.deep.equal([1, 1, 0]);
    expect(await orders().liveOutsideMarketLimitOrders('gnosis', alice, NOW)).to.equal(0);
    // Expired: valid until 2,000,000,000.
    expect(await orders().liveOutsideMarketLimitOrders('mainnet', bob, 2_000_000_001)).to.equal(0);
  });

  it('skips event types it does not handle', async () => {
    const position = (
      await database().ledger.append(
        'order-mainnet-0xunknown',
        [
          {
            id: '00000000-0000-4000-8000-000000000001',
            type: 'SomethingNew',
            version: 3,
            data: {},
          },
        ],
        'any',
      )
    ).position;
    expect(await engine().waitFor('orders', position, 5000)).to.equal(true);
  });
});
