/**
 * Off-chain cancellations (reference §4.3): only the owner of every listed order cancels
 * anything, a bulk request is all or nothing, and each refusal carries the reference's code.
 */
import { expect } from 'chai';
import { deterministicEventId } from '../../../src/domain/event-ids.js';
import { streams, type TradeSettledV1 } from '../../../src/domain/events.js';
import { documentedHttp } from '../../support/openapi.js';
import {
  controlledClock,
  startTestService,
  type ControlledClock,
  type TestService,
} from '../../support/service.js';
import {
  CHAIN_ID,
  newWallet,
  presignOrder,
  signCancellation,
  signCancellations,
  signOrder,
} from '../../support/signing.js';
import { fundedWallet } from '../../support/owners.js';
import { waitFor } from '../../support/wait.js';
import type { Wallet } from 'ethers';

type ErrorBody = { errorType: string; description: string };
type Order = { status: string; invalidated: boolean };

describe('HTTP: cancelling orders', () => {
  let service: TestService;
  let clock: ControlledClock;
  let orders: string;
  before(async () => {
    clock = controlledClock();
    service = await startTestService({ clock });
    orders = `${service.devnet}/api/v1/orders`;
  });
  after(() => service.stop());

  let distinct = 0;
  /** Places a fresh order of `wallet` (distinct amounts keep the UIDs apart) valid for `validFor` s. */
  async function placed(wallet: Wallet, validFor = 1800) {
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {
      validTo: clock.nowSeconds() + validFor,
      sellAmount: String(1_000_000 + ++distinct),
    });
    expect((await documentedHttp('POST', orders, signed.body)).status).to.equal(201);
    return signed.uid;
  }

  const status = async (uid: string) =>
    (await documentedHttp<Order>('GET', `${orders}/${uid}`)).body;
  const cancelBulk = (body: unknown) => documentedHttp<string | ErrorBody>('DELETE', orders, body);

  it('cancels several orders of one owner with one EIP-712 signature', async () => {
    const wallet = await fundedWallet();
    const uids = [await placed(wallet), await placed(wallet)];
    const response = await cancelBulk(await signCancellations(wallet, CHAIN_ID.devnet, uids));
    expect(response.status).to.equal(200);
    expect(response.body).to.equal('Cancelled');
    for (const uid of uids) {
      expect(await status(uid)).to.include({ status: 'cancelled', invalidated: true });
    }
  });

  it('cancels with an ethsign signature and with the single-order endpoint', async () => {
    const wallet = await fundedWallet();
    const bulk = await placed(wallet);
    const body = await signCancellations(wallet, CHAIN_ID.devnet, [bulk], 'ethsign');
    expect((await cancelBulk(body)).status).to.equal(200);
    expect((await status(bulk)).status).to.equal('cancelled');

    const single = await placed(wallet);
    const signature = await signCancellation(wallet, CHAIN_ID.devnet, single);
    const response = await documentedHttp('DELETE', `${orders}/${single}`, signature);
    expect(response.status).to.equal(200);
    expect((await status(single)).status).to.equal('cancelled');
  });

  it('checks a bulk signature over the list as signed, a UID listed twice included', async () => {
    const wallet = await fundedWallet();
    const [first, second] = [await placed(wallet), await placed(wallet)];
    // Mixed case, as a client may send it: the digest is over the bytes, not the spelling.
    const listed = [first, second, first.toUpperCase().replace('0X', '0x')];
    const body = await signCancellations(wallet, CHAIN_ID.devnet, [first, second, first]);
    const response = await cancelBulk({ ...body, orderUids: listed });
    expect(response.status).to.equal(200);
    for (const uid of [first, second]) expect((await status(uid)).status).to.equal('cancelled');
  });

  it('refuses a signature by anyone but the owner (401 WrongOwner) and changes nothing', async () => {
    const owner = await fundedWallet();
    const uid = await placed(owner);
    const response = await cancelBulk(await signCancellations(newWallet(), CHAIN_ID.devnet, [uid]));
    expect(response.status).to.equal(401);
    expect((response.body as ErrorBody).errorType).to.equal('WrongOwner');
    expect((await status(uid)).status).to.equal('open');
  });

  it('is all or nothing: orders of two owners signed by one cancel neither', async () => {
    const alice = await fundedWallet();
    const bob = await fundedWallet();
    const uids = [await placed(alice), await placed(bob)];
    const response = await cancelBulk(await signCancellations(alice, CHAIN_ID.devnet, uids));
    expect(response.status).to.equal(401);
    for (const uid of uids) expect((await status(uid)).status).to.equal('open');
  });

  it('answers OrderNotFound (404) when any listed order is unknown, cancelling none', async () => {
    const wallet = await fundedWallet();
    const known = await placed(wallet);
    const unknown = `0x${'ab'.repeat(56)}`;
    const body = await signCancellations(wallet, CHAIN_ID.devnet, [known, unknown]);
    const response = await cancelBulk(body);
    expect(response.status).to.equal(404);
    expect((response.body as ErrorBody).errorType).to.equal('OrderNotFound');
    expect((await status(known)).status).to.equal('open');
  });

  it('answers AlreadyCancelled for a second cancellation', async () => {
    const wallet = await fundedWallet();
    const uid = await placed(wallet);
    const body = await signCancellations(wallet, CHAIN_ID.devnet, [uid]);
    expect((await cancelBulk(body)).status).to.equal(200);
    const again = await cancelBulk(body);
    expect(again.status).to.equal(400);
    expect((again.body as ErrorBody).errorType).to.equal('AlreadyCancelled');
  });

  it('answers OnChainOrder for a presign order', async () => {
    const wallet = await fundedWallet();
    const presign = presignOrder(wallet.address, CHAIN_ID.devnet);
    expect((await documentedHttp('POST', orders, presign.body)).status).to.equal(201);
    const response = await cancelBulk(
      await signCancellations(wallet, CHAIN_ID.devnet, [presign.uid]),
    );
    expect(response.status).to.equal(400);
    expect((response.body as ErrorBody).errorType).to.equal('OnChainOrder');
  });

  it('answers OrderFullyExecuted for a filled order', async () => {
    const wallet = await fundedWallet();
    const signed = await signOrder(wallet, CHAIN_ID.devnet);
    expect((await documentedHttp('POST', orders, signed.body)).status).to.equal(201);
    // A trade as the chain indexer records it: the order's full sell amount.
    const trade: TradeSettledV1 = {
      network: 'devnet',
      uid: signed.uid,
      owner: signed.owner,
      auctionId: null,
      sellToken: signed.order.sellToken.toLowerCase() as `0x${string}`,
      buyToken: signed.order.buyToken.toLowerCase() as `0x${string}`,
      sellAmount: signed.order.sellAmount,
      buyAmount: signed.order.buyAmount,
      feeAmount: '0',
      settledAt: clock.now().toISOString(),
      chain: {
        chainId: 31337,
        blockNumber: 1,
        blockHash: `0x${'01'.repeat(32)}`,
        logIndex: 0,
        txHash: `0x${'02'.repeat(32)}`,
      },
    };
    await service.ledger.append(
      streams.orderOnChain('devnet', signed.uid),
      [
        {
          id: deterministicEventId('test-trade', signed.uid),
          type: 'TradeSettled',
          version: 1,
          data: trade,
        },
      ],
      'any',
    );
    await waitFor(async () => (await status(signed.uid)).status === 'fulfilled', {
      timeoutMs: 5000,
    });
    const response = await cancelBulk(
      await signCancellations(wallet, CHAIN_ID.devnet, [signed.uid]),
    );
    expect(response.status).to.equal(400);
    expect((response.body as ErrorBody).errorType).to.equal('OrderFullyExecuted');
  });

  it('answers OrderExpired once validTo has passed', async () => {
    const wallet = await fundedWallet();
    const uid = await placed(wallet, 120);
    clock.advance(121);
    expect((await status(uid)).status).to.equal('expired');
    const response = await cancelBulk(await signCancellations(wallet, CHAIN_ID.devnet, [uid]));
    expect(response.status).to.equal(400);
    expect((response.body as ErrorBody).errorType).to.equal('OrderExpired');
  });
});
