/**
 * GET /{network}/api/v1/orders/{uid}/events: an order's history, every ledger event concerning
 * it in ledger order. Real orders meet in real auctions on the shared devnet chain and settle
 * there (the service's autopilot, solver, driver and indexer at work); a cancelled order's
 * history ends with its cancellation; errors keep the reference's shape.
 */
import { expect } from 'chai';
import type { AuctionExcerpt, OrderHistoryEntry } from '../../../src/queries/order-history.js';
import { sharedTestChain } from '../../support/chain.js';
import { placeTrades } from '../../support/place.js';
import { documentedHttp } from '../../support/openapi.js';
import { http, suiteTestService } from '../../support/service.js';
import { fundedWallet } from '../../support/owners.js';
import { fundedCowPair, sellOrder, signTrade } from '../../support/settle.js';
import { CHAIN_ID, signCancellation } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';

describe('HTTP: an order history from the ledger', function () {
  this.timeout(90_000);
  const service = suiteTestService({ env: { DEVNET_AUCTION_INTERVAL_MS: '100' } });

  const history = (uid: string) =>
    documentedHttp<OrderHistoryEntry[]>('GET', `${service().devnet}/api/v1/orders/${uid}/events`);

  it('tells a filled order from its placement through the auction that matched it to its trade, in ledger order', async () => {
    const [a, b] = await fundedCowPair(await sharedTestChain());
    await placeTrades(service().devnet, [a, b]);
    await waitFor(async () => (await history(a.uid)).body.some((e) => e.type === 'TradeSettled'), {
      timeoutMs: 30_000,
      description: 'the trade in the history',
    });

    const { status, body } = await history(a.uid);
    expect(status).to.equal(200);
    const types = body.map((e) => e.type);
    expect(types[0]).to.equal('OrderPlaced');
    expect(types.at(-1)).to.equal('TradeSettled');
    // The auction whose winning solution traded it, then its settlement, then the trade.
    const won = body.findIndex(
      (e) =>
        e.type === 'AuctionClosed' &&
        (e.data as AuctionExcerpt).solutions.some((s) => s.isWinner && s.trade.uid === a.uid),
    );
    expect(won, types.join()).to.be.greaterThan(0);
    const submitted = types.indexOf('SettlementSubmitted');
    expect(submitted).to.be.greaterThan(won);
    expect(types.indexOf('TradeSettled')).to.be.greaterThan(submitted);

    const auction = body[won]!.data as AuctionExcerpt;
    expect(auction.held).to.equal(true);
    const winner = auction.solutions.find((s) => s.isWinner)!;
    // Cut down to the order: its own trade and its pair's prices, not the whole solution.
    expect(winner.trade.uid).to.equal(a.uid);
    expect(Object.keys(winner.clearingPrices).sort()).to.deep.equal(
      [a.order.sellToken, a.order.buyToken].map((t) => t.toLowerCase()).sort(),
    );
    expect(winner).to.not.have.property('orders');

    // Ledger order, each event once; the other order's own events are not in it.
    const positions = body.map((e) => e.position);
    expect(new Set(positions).size).to.equal(positions.length);
    const sorted = [...positions].sort((x, y) => service().ledger.comparePositions(x, y));
    expect(positions).to.deep.equal(sorted);
    expect(
      body.filter((e) => e.stream.includes(b.uid)),
      'the other order’s streams',
    ).to.deep.equal([]);
    expect(body[0]!.data).to.include({ uid: a.uid, network: 'devnet' });
  });

  it('shows the auctions that held an order no one could fill, and ends with its signed cancellation', async () => {
    const chain = await sharedTestChain();
    const owner = await fundedWallet();
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    // A limit far above any market: auctions hold it, no solution trades it.
    const order = sellOrder({
      sellToken: chain.deployment.weth.address,
      buyToken: dusd,
      sellAmount: String(10n ** 17n),
      buyAmount: String(10n ** 30n),
    });
    const a = await signTrade(chain, owner, order);
    await placeTrades(service().devnet, [a]);
    const heldBy = async () =>
      (await history(a.uid)).body.filter(
        (e) => e.type === 'AuctionClosed' && (e.data as AuctionExcerpt).held,
      );
    // The autopilot records a cut only when it changed: at least one auction holds it.
    await waitFor(async () => (await heldBy()).length >= 1, {
      timeoutMs: 20_000,
      description: 'an auction holding the order',
    });
    const cancellation = await signCancellation(owner, CHAIN_ID.devnet, a.uid);
    const cancelled = await http(
      'DELETE',
      `${service().devnet}/api/v1/orders/${a.uid}`,
      cancellation,
    );
    expect(cancelled.status, cancelled.text).to.equal(200);

    const { body } = await history(a.uid);
    const held = body
      .filter((e) => e.type === 'AuctionClosed')
      .map((e) => e.data as AuctionExcerpt);
    for (const auction of held) {
      expect(auction).to.include({ held: true, executed: '0', filtered: null, expiry: false });
      expect(auction.solutions).to.deep.equal([]);
    }
    expect(body[0]!.type).to.equal('OrderPlaced');
    const last = body.at(-1)!;
    expect(last.type).to.equal('OrderCancelled');
    expect(last.data).to.include({ source: 'api', uid: a.uid });
  });

  it('answers the reference’s error shape for an unknown and a malformed UID', async () => {
    const unknown = await history(`0x${'ab'.repeat(56)}`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({
      errorType: 'NotFound',
      description: 'Order was not found',
    });
    const malformed = await documentedHttp<{ errorType: string }>(
      'GET',
      `${service().devnet}/api/v1/orders/0x1234/events`,
    );
    expect(malformed.status).to.equal(400);
    expect(malformed.body.errorType).to.be.a('string');
  });
});
