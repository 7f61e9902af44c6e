/**
 * Replacing an order through POST /api/v1/orders (reference §4.1 steps 3 and 13): the new
 * order's app data names the old one, which must be cancellable; the new order must be
 * ECDSA-signed by the old order's owner, and the old one not traded by a solution of the last
 * 5 auctions. Then the old order is cancelled and the new one placed; a refusal writes nothing.
 *
 * The service cuts no auction here; the tests append `AuctionClosed` and `TradeSettled` as the
 * autopilot and the chain indexer would.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import knex, { type Knex } from 'knex';
import { deterministicEventId } from '../../../src/domain/event-ids.js';
import {
  streams,
  type Address,
  type AuctionClosedV5,
  type TradeSettledV1,
} from '../../../src/domain/events.js';
import type { Notice } from '../../../src/domain/notices.js';
import { REPLACED_BY } from '../../../src/domain/replacement.js';
import { appendEach, readModelsCaughtUp } from '../../support/append-events.js';
import { watchWrites, type LedgerWatch } from '../../support/ledger-watch.js';
import { fundedWallet } from '../../support/owners.js';
import { distinctAmount, presignReplacement, signReplacement } from '../../support/replacement.js';
import {
  controlledClock,
  http,
  startTestService,
  type ControlledClock,
  type TestService,
} from '../../support/service.js';
import {
  CHAIN_ID,
  presignOrder,
  signCancellations,
  signOrder,
  type SignedOrder,
} from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';

type ErrorBody = { errorType: string; description: string };
type Order = { status: string; invalidated: boolean };

describe('HTTP: replacing an order', function () {
  this.timeout(120_000);
  let service: TestService;
  let clock: ControlledClock;
  let db: Knex;
  let watch: LedgerWatch;
  let orders: string;
  before(async () => {
    clock = controlledClock();
    service = await startTestService({
      clock,
      env: { NOTIFICATIONS_API_KEY: 'test-key' },
    });
    db = knex({ client: 'pg', connection: service.databaseUrl, pool: { min: 0, max: 2 } });
    watch = await watchWrites(service.ledger, service.databaseUrl);
    orders = `${service.devnet}/api/v1/orders`;
  });
  after(async () => {
    await watch?.close();
    await db?.destroy();
    await service?.stop();
  });

  const submit = (signed: SignedOrder) => http<string | ErrorBody>('POST', orders, signed.body);
  const order = async (uid: string) => http<Order>('GET', `${orders}/${uid}`);

  async function placed(wallet: Wallet, validFor = 1800): Promise<SignedOrder> {
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {
      validTo: clock.nowSeconds() + validFor,
      sellAmount: distinctAmount(),
    });
    expect((await submit(signed)).status).to.equal(201);
    return signed;
  }

  /** Appends chain or autopilot facts and waits until every read model has them. */
  async function append(...events: Parameters<typeof appendEach>[1]): Promise<void> {
    await readModelsCaughtUp(db, service.ledger, await appendEach(service.ledger, events));
  }

  /** The request is refused with this status and errorType, and nothing is written. */
  async function refused(signed: SignedOrder, status: number, errorType: string) {
    await watch.appended();
    const response = await submit(signed);
    expect(response.status, response.text).to.equal(status);
    expect((response.body as ErrorBody).errorType).to.equal(errorType);
    expect(await watch.appended(), 'events written by a refused replacement').to.deep.equal([]);
    expect((await order(signed.uid)).status).to.equal(404);
    return response.body as ErrorBody;
  }

  it('cancels the old order and places the new one, readable at once, with a notice', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    await watch.appended();
    const replacement = await signReplacement(owner, old.uid, clock.nowSeconds());
    const response = await submit(replacement);
    expect(response.status, response.text).to.equal(201);
    expect(response.body).to.equal(replacement.uid);

    expect((await order(old.uid)).body).to.include({ status: 'cancelled', invalidated: true });
    expect((await order(replacement.uid)).body).to.include({ status: 'open' });

    // The old order's cancellation first, naming its replacement; then the new order.
    const written = await watch.appended();
    const cancellation = written.find((e) => e.type === 'OrderCancelled')!;
    expect(cancellation.stream).to.equal(streams.order('devnet', old.uid));
    expect(cancellation.metadata).to.deep.equal({ [REPLACED_BY]: replacement.uid });
    expect(cancellation.data).to.include({ uid: old.uid, source: 'api', by: old.owner });
    const placement = written.findIndex((e) => e.type === 'OrderPlaced');
    expect(written.indexOf(cancellation)).to.be.below(placement);

    await waitFor(
      async () => {
        const list = await http<Notice[]>(
          'GET',
          `${service.url}/accounts/${old.owner}/notifications`,
        );
        return list.body.some(
          (n) => n.type === 'order_cancelled' && n.metadata.orderId === old.uid,
        );
      },
      { description: "the old order's order_cancelled notice" },
    );
  });

  it('answers OrderNotFound (404) for an unknown old order, before checking the signature', async () => {
    const owner = await fundedWallet();
    const unknown = `0x${'ab'.repeat(56)}`;
    const replacement = await signReplacement(owner, unknown, clock.nowSeconds());
    await refused(replacement, 404, 'OrderNotFound');
    // Step 3 comes before signature recovery (step 5): a broken signature still gets 404.
    replacement.body.signature = `0x${'11'.repeat(65)}`;
    await refused(replacement, 404, 'OrderNotFound');
  });

  it('answers OnChainOrder for a presign old order', async () => {
    const owner = await fundedWallet();
    const old = presignOrder(owner.address, CHAIN_ID.devnet, { sellAmount: distinctAmount() });
    expect((await submit(old)).status).to.equal(201);
    await refused(await signReplacement(owner, old.uid, clock.nowSeconds()), 400, 'OnChainOrder');
  });

  it('answers AlreadyCancelled for a cancelled old order', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const cancel = await signCancellations(owner, CHAIN_ID.devnet, [old.uid]);
    expect((await http('DELETE', orders, cancel)).status).to.equal(200);
    const body = await refused(
      await signReplacement(owner, old.uid, clock.nowSeconds()),
      400,
      'AlreadyCancelled',
    );
    expect(body.description).to.equal('Order is already cancelled');
  });

  it('answers OrderFullyExecuted for a filled old order', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const trade: TradeSettledV1 = {
      network: 'devnet',
      uid: old.uid,
      owner: old.owner,
      auctionId: null,
      sellToken: old.order.sellToken.toLowerCase() as Address,
      buyToken: old.order.buyToken.toLowerCase() as Address,
      sellAmount: old.order.sellAmount,
      buyAmount: old.order.buyAmount,
      feeAmount: '0',
      settledAt: clock.now().toISOString(),
      chain: {
        chainId: CHAIN_ID.devnet,
        blockNumber: 1,
        blockHash: `0x${'01'.repeat(32)}`,
        logIndex: 0,
        txHash: `0x${'02'.repeat(32)}`,
      },
    };
    await append({ type: 'TradeSettled', data: trade });
    expect((await order(old.uid)).body.status).to.equal('fulfilled');
    await refused(
      await signReplacement(owner, old.uid, clock.nowSeconds()),
      400,
      'OrderFullyExecuted',
    );
  });

  it('answers OrderExpired once the old order has expired', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner, 120);
    clock.advance(121);
    await refused(await signReplacement(owner, old.uid, clock.nowSeconds()), 400, 'OrderExpired');
  });

  it('answers 401 WrongOwner when another account signed the new order', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const stranger = await fundedWallet();
    const body = await refused(
      await signReplacement(stranger, old.uid, clock.nowSeconds()),
      401,
      'WrongOwner',
    );
    expect(body.description).to.equal('Old and new orders have different signers');
    expect((await order(old.uid)).body.status).to.equal('open');
  });

  it('answers InvalidSignature "Malformed signature" for a new order that is not ECDSA', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const body = await refused(
      presignReplacement(owner.address, old.uid, clock.nowSeconds()),
      400,
      'InvalidSignature',
    );
    expect(body.description).to.equal('Malformed signature');
    expect((await order(old.uid)).body.status).to.equal('open');
  });

  let auctionId = 1_000;
  /** An auction whose only solution trades `traded` (or none at all). */
  const auction = (traded: SignedOrder | null): AuctionClosedV5 => ({
    network: 'devnet',
    id: ++auctionId,
    block: auctionId,
    cutAt: clock.now().toISOString(),
    deadline: clock.now().toISOString(),
    deadlineBlock: auctionId + 5,
    base: null,
    left: [],
    unpriced: [],
    unfiltered: [],
    orders: traded ? [{ uid: traded.uid, executed: '0' }] : [],
    prices: {},
    filtered: [],
    solutions: traded
      ? [
          {
            solver: 'test',
            solverAddress: `0x${'5'.repeat(40)}`,
            score: '1',
            rank: 1,
            // A losing proposal counts too: the reference checks every proposed execution.
            isWinner: false,
            filteredOut: false,
            referenceScore: null,
            clearingPrices: {},
            orders: [
              {
                uid: traded.uid,
                sellToken: traded.order.sellToken.toLowerCase() as Address,
                buyToken: traded.order.buyToken.toLowerCase() as Address,
                executedAmount: traded.order.sellAmount,
                sellAmount: traded.order.sellAmount,
                buyAmount: traded.order.buyAmount,
                fee: '0',
              },
            ],
            solutionId: 0,
            preInteractions: [],
            interactions: [],
            postInteractions: [],
          },
        ]
      : [],
  });

  it('answers OldOrderActivelyBidOn while a solution of the last 5 auctions trades the old order', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    await append({ type: 'AuctionClosed', data: auction(old) });
    for (let i = 0; i < 4; i++) await append({ type: 'AuctionClosed', data: auction(null) });
    const replacement = await signReplacement(owner, old.uid, clock.nowSeconds());
    await refused(replacement, 400, 'OldOrderActivelyBidOn');
    expect((await order(old.uid)).body.status).to.equal('open');

    // A sixth auction pushes the proposal out of the last five.
    await append({ type: 'AuctionClosed', data: auction(null) });
    expect((await submit(replacement)).status).to.equal(201);
    expect((await order(old.uid)).body.status).to.equal('cancelled');
  });

  it('records nothing of a replacement refused by a later rule of the new order', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const replacement = await signReplacement(owner, old.uid, clock.nowSeconds(), {
      buyAmount: '0',
    });
    await refused(replacement, 400, 'ZeroAmount');
    expect((await order(old.uid)).body.status).to.equal('open');
    // The deterministic id of the cancellation this replacement would have appended.
    const id = deterministicEventId(
      'OrderCancelled',
      'devnet',
      old.uid,
      REPLACED_BY,
      replacement.uid,
    );
    const stream = await service.ledger.readStream(streams.order('devnet', old.uid));
    expect(stream.map((e) => e.id)).to.not.include(id);
  });
});
