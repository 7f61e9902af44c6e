/**
 * The ledger's clock passes an order's expiry even when nothing else trades: once an order
 * expired unfilled, the autopilot cuts an auction though it has nothing to solve, and the notices
 * projector tells the owner at that auction's time. Empty auctions are not cut otherwise.
 */
import { expect } from 'chai';
import { DEVNET_DEMO_TOKENS } from '../../../src/domain/networks.js';
import { fundedWallet } from '../../support/owners.js';
import { controlledClock, http, suiteTestService } from '../../support/service.js';
import { CHAIN_ID, signOrder } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';
import { recordedAuctions } from '../../support/auctions.js';

describe('autopilot: expiry without other trading', function () {
  this.timeout(60_000);

  const clock = controlledClock();
  const service = suiteTestService({
    clock,
    env: { DEVNET_AUCTION_INTERVAL_MS: '50', NOTIFICATIONS_API_KEY: 'expiry-key' },
  });

  const auctions = async () =>
    (await recordedAuctions(service().ledger)).filter((a) => a.network === 'devnet');

  it('cuts one empty auction after the order expired, and the owner gets its expiry notice', async () => {
    const owner = await fundedWallet();
    const validTo = clock.nowSeconds() + 300;
    // Asks a thousand times the market: no solver fills it.
    const order = await signOrder(owner, CHAIN_ID.devnet, {
      buyToken: DEVNET_DEMO_TOKENS.DUSD,
      buyAmount: (10n ** 24n).toString(),
      validTo,
    });
    const placed = await http('POST', `${service().devnet}/api/v1/orders`, order.body);
    expect(placed.status, placed.text).to.equal(201);
    await waitFor(
      async () => (await auctions()).some((a) => a.orders.some((o) => o.uid === order.uid)),
      {
        description: 'the order in an auction',
      },
    );

    // Within the validity margin: out of auctions, not yet expired; nothing to cut.
    clock.advance(290);
    const before = (await auctions()).length;
    clock.advance(20);
    await waitFor(
      async () => (await auctions()).some((a) => Date.parse(a.cutAt) / 1000 > validTo),
      {
        description: 'an auction after validTo',
      },
    );
    const after = (await auctions()).slice(before);
    const empty = after.filter((a) => a.orders.length === 0 && a.filtered.length === 0);
    expect(empty.length).to.be.at.least(1);
    expect(empty.filter((a) => Date.parse(a.cutAt) / 1000 > validTo)).to.have.length(1);

    const notices = async () =>
      (
        await http<{ type: string; timestamp: string; metadata: { orderId: string } }[]>(
          'GET',
          `${service().url}/accounts/${owner.address}/notifications`,
        )
      ).body.filter((n) => n.metadata.orderId === order.uid && n.type === 'order_expired');
    await waitFor(async () => (await notices()).length === 1, { description: 'the expiry notice' });
    expect(Date.parse((await notices())[0]!.timestamp) / 1000).to.be.greaterThan(validTo);
  });
});
