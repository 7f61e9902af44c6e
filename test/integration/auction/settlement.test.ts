/**
 * The settlement driver's failures, on a chain of the suite's own (mining is switched off and on
 * here): a settlement whose simulation reverts and one that is not mined by the auction's
 * deadline are each recorded on the auction's stream, their orders stay out of auctions while in
 * flight and return afterwards, and a late landing still counts while the retry that it beat is
 * recorded as reverted.
 */
import { expect } from 'chai';
import { Wallet } from 'ethers';
import type {
  Address,
  AuctionClosedV3,
  DomainEvent,
  SettlementFailedV1,
  SettlementSubmittedV1,
} from '../../../src/domain/events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { orderBody, signCowPair, type SignedTrade } from '../../support/settle.js';
import { waitFor } from '../../support/wait.js';

const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

describe('settlement driver: failures are recorded and orders return', function () {
  this.timeout(90_000);

  let chain: TestChain;
  let service: TestService;

  before(async () => {
    chain = await startTestChain();
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '100',
        SETTLEMENT_DEADLINE_MS: '3000',
      },
    });
  });

  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const matchingPair = (accounts: [number, number]) =>
    signCowPair(
      chain,
      accounts.map((i) => new Wallet(chain.deployment.accounts[i]!.privateKey)) as [Wallet, Wallet],
    );

  async function place(trade: SignedTrade): Promise<void> {
    const { status, text } = await http(
      'POST',
      `${service.devnet}/api/v1/orders`,
      orderBody(trade),
    );
    expect(status, text).to.equal(201);
  }

  const events = async (): Promise<DomainEvent[]> =>
    (await service.ledger.readAll(null, 100_000)) as unknown as DomainEvent[];
  const ofType = async <T>(type: DomainEvent['type']): Promise<T[]> =>
    (await events()).filter((e) => e.type === type).map((e) => e.data as T);
  const auctionsWith = async (uid: string) =>
    (await ofType<AuctionClosedV3>('AuctionClosed')).filter((a) =>
      a.orders.some((o) => o.uid === uid),
    );
  const winningAuctions = async (uid: string) =>
    (await auctionsWith(uid))
      .filter((x) => x.solutions.some((s) => s.isWinner && s.orders.some((o) => o.uid === uid)))
      .map((x) => x.id);
  const failures = async (auctionIds: readonly number[]) =>
    (await ofType<SettlementFailedV1>('SettlementFailed')).filter((f) =>
      auctionIds.includes(f.auctionId),
    );
  const fulfilled = async (uid: string) =>
    (await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${uid}`)).body
      .status === 'fulfilled';

  it('records a settlement whose simulation reverts, retries its orders, and settles them once they can be', async () => {
    const [a, b] = await matchingPair([0, 1]);
    await place(a);
    // A's WETH can no longer be pulled; the cut checks balances, not allowances.
    await chain.approve(a.owner, WETH, 0n);
    await place(b);

    await waitFor(
      async () => (await failures((await auctionsWith(a.uid)).map((x) => x.id))).length >= 2,
      {
        timeoutMs: 20_000,
        description: 'two failed attempts',
      },
    );
    const attempts = await failures((await auctionsWith(a.uid)).map((x) => x.id));
    expect(attempts.map((f) => f.reason)).to.include('simulationFailed');
    expect(attempts.every((f) => f.txHash === null)).to.equal(true);
    expect(attempts[0]!.detail).to.be.a('string').and.not.equal('');
    // Each failure sent the pair back: they were in a later auction again.
    const both = (await auctionsWith(a.uid)).filter((x) => x.orders.some((o) => o.uid === b.uid));
    expect(both.length).to.be.at.least(2);

    await chain.approve(a.owner, WETH, 2n ** 256n - 1n);
    await waitFor(async () => (await fulfilled(a.uid)) && (await fulfilled(b.uid)), {
      timeoutMs: 20_000,
      description: 'both orders fulfilled',
    });
  });

  it('keeps an unmined settlement’s orders out of auctions until its deadline, records it as timed out, and still counts its late landing', async () => {
    const [a, b] = await matchingPair([2, 3]);
    await place(a);
    await chain.provider.send('evm_setAutomine', [false]);
    let sent: SettlementSubmittedV1 | undefined;
    try {
      await place(b);
      await waitFor(async () => (await failures(await winningAuctions(a.uid))).length > 0, {
        timeoutMs: 20_000,
        description: 'a timed-out settlement',
      });
      const [first] = await winningAuctions(a.uid);
      const [timedOut] = await failures([first!]);
      [sent] = (await ofType<SettlementSubmittedV1>('SettlementSubmitted')).filter(
        (s) => s.auctionId === first,
      );
      expect(timedOut).to.include({ reason: 'timedOut', txHash: sent!.txHash });
      // In flight until the deadline: no auction took the pair again before it.
      const auction = (await auctionsWith(a.uid)).find((x) => x.id === first)!;
      const during = (await auctionsWith(a.uid)).filter(
        (x) => x.id > first! && Date.parse(x.cutAt) < Date.parse(auction.deadline),
      );
      expect(during).to.deep.equal([]);
      // After it, the pair is back in auctions.
      await waitFor(async () => (await auctionsWith(a.uid)).some((x) => x.id > first!), {
        timeoutMs: 10_000,
        description: 'the pair back in an auction',
      });
    } finally {
      await chain.provider.send('evm_setAutomine', [true]);
      await chain.mine();
    }
    await waitFor(async () => (await fulfilled(a.uid)) && (await fulfilled(b.uid)), {
      timeoutMs: 20_000,
      description: 'both orders fulfilled by the late settlement',
    });
    const trades = (
      await http<{ txHash: string }[]>('GET', `${service.devnet}/api/v2/trades?orderUid=${a.uid}`)
    ).body;
    expect(trades.map((t) => t.txHash)).to.deep.equal([sent!.txHash]);
    // Every retry the pending settlement beat failed: its simulation saw the orders filled, or
    // it was sent and reverted once the first one was mined.
    const retries = (await winningAuctions(a.uid)).slice(1);
    await waitFor(async () => (await failures(retries)).length === retries.length, {
      timeoutMs: 10_000,
      description: 'every retry recorded as failed',
    });
    for (const retry of await failures(retries)) {
      expect(retry.reason).to.be.oneOf(['simulationFailed', 'reverted']);
    }
  });
});
