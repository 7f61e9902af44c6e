/**
 * Order replacement under concurrency and partial failure. The replacement appends twice (the
 * old order's cancellation, then the new order), so these check every state it can leave:
 * a stop between the two appends is finished by the client's retry, and concurrent writers on
 * the old order (other replacements, a cancellation, the same submission) leave exactly one
 * cancellation and at most one new order.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import { streams, type OrderUid } from '../../../src/domain/events.js';
import { replacementCancellation, replacingOrder } from '../../../src/domain/replacement.js';
import { fundedWallet } from '../../support/owners.js';
import { distinctAmount, signReplacement } from '../../support/replacement.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import {
  CHAIN_ID,
  nowSeconds,
  signCancellations,
  signOrder,
  type SignedOrder,
} from '../../support/signing.js';

type ErrorBody = { errorType: string; description: string };
type Order = { status: string };

describe('HTTP: order replacement races and retries', function () {
  this.timeout(120_000);
  let service: TestService;
  let orders: string;
  before(async () => {
    service = await startTestService();
    orders = `${service.devnet}/api/v1/orders`;
  });
  after(() => service?.stop());

  const submit = (signed: SignedOrder) => http<string | ErrorBody>('POST', orders, signed.body);
  const statusOf = async (uid: string) => {
    const response = await http<Order>('GET', `${orders}/${uid}`);
    return response.status === 404 ? 'missing' : response.body.status;
  };
  const errorTypeOf = (response: { body: unknown }) => (response.body as ErrorBody).errorType;

  async function placed(wallet: Wallet): Promise<SignedOrder> {
    const signed = await signOrder(wallet, CHAIN_ID.devnet, { sellAmount: distinctAmount() });
    expect((await submit(signed)).status).to.equal(201);
    return signed;
  }

  /** The old order's cancellations in its API stream, each with the order that replaced it. */
  async function cancellationsOf(uid: OrderUid) {
    const stream = await service.ledger.readStream(streams.order('devnet', uid));
    return stream
      .filter((e) => e.type === 'OrderCancelled')
      .map((e) => ({ replacedBy: replacingOrder(e.metadata) }));
  }

  it('finishes a replacement stopped between its two appends when the client retries', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const replacement = await signReplacement(owner, old.uid, nowSeconds());
    // The first append exactly as the command makes it, at the revision it checked (0: placed).
    const event = replacementCancellation(
      'devnet',
      old.uid,
      replacement.uid,
      old.owner,
      new Date(),
    );
    await service.ledger.append(streams.order('devnet', old.uid), [event], 0n);

    const retry = await submit(replacement);
    expect(retry.status, retry.text).to.equal(201);
    expect(await statusOf(replacement.uid)).to.equal('open');
    expect(await statusOf(old.uid)).to.equal('cancelled');
    expect(await cancellationsOf(old.uid)).to.deep.equal([{ replacedBy: replacement.uid }]);

    // Done now: the same submission is a duplicate, another replacement finds the old cancelled.
    const again = await submit(replacement);
    expect([again.status, errorTypeOf(again)]).to.deep.equal([400, 'DuplicatedOrder']);
    const other = await submit(await signReplacement(owner, old.uid, nowSeconds()));
    expect([other.status, errorTypeOf(other)]).to.deep.equal([400, 'AlreadyCancelled']);
  });

  it('lets exactly one of several concurrent replacements of one order win', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const contenders = await Promise.all(
      [1, 2, 3, 4].map(() => signReplacement(owner, old.uid, nowSeconds())),
    );
    const responses = await Promise.all(contenders.map(submit));

    const winners = contenders.filter((_, i) => responses[i]!.status === 201);
    expect(winners, responses.map((r) => r.text).join('\n')).to.have.length(1);
    for (const [i, response] of responses.entries()) {
      if (response.status === 201) continue;
      expect([response.status, errorTypeOf(response)]).to.deep.equal([400, 'AlreadyCancelled']);
      expect(await statusOf(contenders[i]!.uid)).to.equal('missing');
    }
    expect(await statusOf(winners[0]!.uid)).to.equal('open');
    expect(await statusOf(old.uid)).to.equal('cancelled');
    expect(await cancellationsOf(old.uid)).to.deep.equal([{ replacedBy: winners[0]!.uid }]);
  });

  it('places the same replacement submitted twice at once once', async () => {
    const owner = await fundedWallet();
    const old = await placed(owner);
    const replacement = await signReplacement(owner, old.uid, nowSeconds());
    const responses = await Promise.all([submit(replacement), submit(replacement)]);
    const outcomes = responses.map((r) => (r.status === 201 ? 'placed' : errorTypeOf(r))).sort();
    expect(outcomes).to.deep.equal(['DuplicatedOrder', 'placed']);
    expect(await statusOf(replacement.uid)).to.equal('open');
    expect(await cancellationsOf(old.uid)).to.deep.equal([{ replacedBy: replacement.uid }]);
  });

  it('decides a replacement racing a signed cancellation of the old order one way or the other', async () => {
    const owner = await fundedWallet();
    // Several rounds, so that either side may win; each must leave a consistent state.
    for (let round = 0; round < 4; round++) {
      const old = await placed(owner);
      const replacement = await signReplacement(owner, old.uid, nowSeconds());
      const cancellation = await signCancellations(owner, CHAIN_ID.devnet, [old.uid]);
      const [replaced, cancelled] = await Promise.all([
        submit(replacement),
        http<string | ErrorBody>('DELETE', orders, cancellation),
      ]);

      expect(await statusOf(old.uid)).to.equal('cancelled');
      const recorded = await cancellationsOf(old.uid);
      expect(recorded).to.have.length(1);
      if (replaced.status === 201) {
        expect([cancelled.status, errorTypeOf(cancelled)]).to.deep.equal([400, 'AlreadyCancelled']);
        expect(recorded[0]!.replacedBy).to.equal(replacement.uid);
        expect(await statusOf(replacement.uid)).to.equal('open');
      } else {
        expect(cancelled.status, cancelled.text).to.equal(200);
        expect([replaced.status, errorTypeOf(replaced)]).to.deep.equal([400, 'AlreadyCancelled']);
        expect(recorded[0]!.replacedBy).to.equal(null);
        expect(await statusOf(replacement.uid)).to.equal('missing');
      }
    }
  });
});
