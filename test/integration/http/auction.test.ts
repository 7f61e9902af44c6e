/**
 * The autopilot (issue 5 item 1, the cut): on the devnet it cuts auctions of the open orders
 * every interval, leaves out the orders its owner cannot fund or whose tokens have no price
 * (keeping the reason), and serves the latest at GET /api/v1/auction.
 */
import { expect } from 'chai';
import type { Address, AuctionClosedV5 } from '../../../src/domain/events.js';
import { sharedTestChain } from '../../support/chain.js';
import { documentedHttp, expectMatchesResponse } from '../../support/openapi.js';
import { fundedWallet } from '../../support/owners.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { CHAIN_ID, newWallet, signOrder, TOKENS } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';
import { recordedAuctions } from '../../support/auctions.js';

interface ApiAuction {
  id: number;
  block: number;
  orders: { uid: string }[];
  prices: Record<string, string>;
}

describe('HTTP: batch auctions (the cut)', function () {
  this.timeout(60_000);
  let service: TestService;

  before(async () => {
    // The cut alone: with no solver the orders stay open from auction to auction.
    service = await startTestService({
      env: { DEVNET_AUCTION_INTERVAL_MS: '50', BUILTIN_SOLVER: 'false' },
    });
  });
  after(() => service?.stop());

  const closedAuctions = (): Promise<AuctionClosedV5[]> => recordedAuctions(service.ledger);

  it('cuts auctions of the solvable orders, filters the rest with a reason, and serves the latest', async () => {
    const chain = await sharedTestChain();
    const weth = chain.deployment.weth.address;
    const dusd = chain.deployment.tokens[0]!.address;
    const signedOrders = new Map<string, Awaited<ReturnType<typeof signOrder>>>();
    const place = async (wallet: Awaited<ReturnType<typeof fundedWallet>>, buyToken: string) => {
      const signed = await signOrder(wallet, CHAIN_ID.devnet, { sellToken: weth, buyToken });
      const response = await http('POST', `${service.devnet}/api/v1/orders`, signed.body);
      expect(response.status, response.text).to.equal(201);
      signedOrders.set(signed.uid, signed);
      return signed.uid;
    };
    const solvable = await place(await fundedWallet(), dusd);
    // Accepted (its allowance covers the order), but it holds nothing to sell.
    const broke = newWallet().connect(chain.provider);
    await chain.fund(broke.address as Address, weth, 0n);
    const unfunded = await place(broke, dusd);
    // DAI at its mainnet address has no pool on the devnet: no native price.
    const unpriced = await place(await fundedWallet(), TOKENS.DAI);

    // The first auction after all three placements keeps the two it left out, with reasons.
    const cutWithAll = async () =>
      (await closedAuctions()).find(
        (a) =>
          a.orders.some((o) => o.uid === solvable) &&
          a.filtered.some((f) => f.uid === unfunded && f.reason === 'InsufficientBalance') &&
          a.filtered.some((f) => f.uid === unpriced && f.reason === 'MissingNativePrice'),
      );
    await waitFor(async () => (await cutWithAll()) !== undefined, {
      timeoutMs: 10_000,
      description: 'an auction after the three placements',
    });
    const cut = (await cutWithAll())!;

    let auction: ApiAuction | undefined;
    await waitFor(
      async () => {
        const response = await http<ApiAuction>('GET', `${service.devnet}/api/v1/auction`);
        auction = response.body;
        return response.status === 200 && auction.id >= cut.id;
      },
      { timeoutMs: 10_000, description: 'GET /auction serving that auction or a later one' },
    );
    expectMatchesResponse('get', '/api/v1/auction', 200, auction);
    // The ledger's event names the order; the API shows it whole, as signed.
    expect(cut.orders.find((o) => o.uid === solvable)).to.deep.equal({
      uid: solvable,
      executed: '0',
    });
    const signed = signedOrders.get(solvable)!;
    expect(auction!.orders.find((o) => o.uid === solvable)).to.deep.include({
      owner: signed.owner,
      sellToken: weth.toLowerCase(),
      buyToken: dusd.toLowerCase(),
      sellAmount: signed.order.sellAmount,
      buyAmount: signed.order.buyAmount,
      validTo: signed.order.validTo,
      appData: signed.appDataHash,
      kind: signed.order.kind,
      signingScheme: 'eip712',
      signature: signed.body.signature,
      executed: '0',
    });
    const uids = auction!.orders.map((o) => o.uid);
    expect(uids).to.include(solvable);
    expect(uids).not.to.include(unfunded);
    expect(uids).not.to.include(unpriced);
    expect(auction!.prices[weth]).to.equal(String(10n ** 18n));
    expect(Number(auction!.prices[dusd]) / 1e18).to.be.closeTo(1 / 3000, 1 / 3000 / 50);

    const closed = await closedAuctions();
    const ids = closed.map((a) => a.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('lists the recent auctions newest first, as the ledger recorded them, within a bounded limit', async () => {
    await waitFor(async () => (await closedAuctions()).length >= 2, {
      timeoutMs: 10_000,
      description: 'two recorded auctions',
    });
    const recorded = (await closedAuctions()).reverse();
    const { status, body } = await documentedHttp<
      {
        id: number;
        block: number;
        cutAt: string;
        orders: number;
        filtered: number;
        solutions: number;
      }[]
    >('GET', `${service.devnet}/api/v1/auctions?limit=2`);
    expect(status).to.equal(200);
    expect(body).to.have.length(2);
    // Newest first; a later auction may have been recorded since the ledger was read.
    expect(body[0]!.id).to.be.at.least(recorded[0]!.id);
    expect(body[0]!.id).to.be.greaterThan(body[1]!.id);
    const second = recorded.find((a) => a.id === body[1]!.id)!;
    expect(body[1]).to.deep.equal({
      id: second.id,
      block: second.block,
      cutAt: second.cutAt,
      orders: second.orders.length,
      filtered: second.filtered.length,
      solutions: second.solutions.length,
    });
    for (const limit of ['0', '101', 'x']) {
      const refused = await documentedHttp<{ errorType: string }>(
        'GET',
        `${service.devnet}/api/v1/auctions?limit=${limit}`,
      );
      expect(refused.status, limit).to.equal(400);
      expect(refused.body.errorType).to.be.oneOf(['InvalidLimit', 'InvalidParameter']);
    }
    const none = await documentedHttp('GET', `${service.url}/sepolia/api/v1/auctions`);
    expect(none).to.deep.include({ status: 200, body: [] });
  });

  it('answers 404 before any auction of a network', async () => {
    const response = await http<{ errorType: string }>(
      'GET',
      `${service.url}/sepolia/api/v1/auction`,
    );
    expect(response.status).to.equal(404);
    expect(response.body.errorType).to.equal('NotFound');
  });
});
