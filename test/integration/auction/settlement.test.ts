/**
 * Settlements that would fail, on a chain of the suite's own (mining is switched off and on
 * here): a winner whose simulation reverts is dropped before the auction is recorded and the
 * order that cannot settle is left out, so the others settle; one that is not mined by the
 * auction's deadline is recorded on the auction's stream, its orders stay out of auctions while
 * in flight and return afterwards, and a late landing still counts while the retry that it beat
 * is recorded as reverted.
 */
import { expect } from 'chai';
import { Contract, Wallet, toQuantity } from 'ethers';
import type {
  Address,
  AuctionClosedV5,
  DomainEvent,
  Hex,
  SettlementFailedV1,
  SettlementSubmittedV1,
} from '../../../src/domain/events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import {
  deployEip1271Wallet,
  orderIdentity,
  signCowPair,
  type SignedTrade,
} from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { placeTrades } from '../../support/place.js';
import { shownTrades } from '../../support/trades.js';
import { waitFor } from '../../support/wait.js';
import { recordedAuctions } from '../../support/auctions.js';

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

  const place = (trade: SignedTrade) => placeTrades(service.devnet, [trade]);

  const events = async (): Promise<DomainEvent[]> =>
    (await service.ledger.readAll(null, 100_000)) as unknown as DomainEvent[];
  const ofType = async <T>(type: DomainEvent['type']): Promise<T[]> =>
    (await events()).filter((e) => e.type === type).map((e) => e.data as T);
  const auctionsWith = async (uid: string) =>
    (await recordedAuctions(service.ledger)).filter((a) => a.orders.some((o) => o.uid === uid));
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

  /** A CoW pair of two new owners, funded and approved, signed over `appData`. */
  async function freshPair(
    appData: readonly [string, string] = ['{}', '{}'],
  ): Promise<[SignedTrade, SignedTrade]> {
    const [c, d] = [Wallet.createRandom(), Wallet.createRandom()];
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    await chain.fund(c.address as Address, WETH, 2n * 10n ** 18n);
    await chain.fund(d.address as Address, dusd, 10_000n * 10n ** 18n);
    return signCowPair(chain, [c, d], appData);
  }

  /**
   * A CoW pair whose WETH seller is an EIP-1271 wallet (funded and approved) signed for by
   * `signer`, its order with the app data `walletAppData`, and a new DUSD seller.
   */
  async function walletPair(
    signer: Wallet,
    walletAppData: string,
  ): Promise<[SignedTrade, SignedTrade, Contract]> {
    const wallet = await deployEip1271Wallet(chain, signer);
    await chain.fund(wallet.address, WETH, 2n * 10n ** 18n);
    const [eoaHalf, b] = await freshPair([walletAppData, '{}']);
    const { digest, uid } = orderIdentity(chain, eoaHalf.order, wallet.address);
    const a: SignedTrade = {
      order: eoaHalf.order,
      owner: wallet.address,
      signingScheme: 'eip1271',
      signature: signer.signingKey.sign(digest).serialized as Hex,
      digest,
      uid,
    };
    return [a, b, wallet.contract];
  }

  it('drops a winner that would revert before recording it, leaves out the order that cannot settle, and settles the others', async () => {
    const [signer, heir] = [newWallet(), newWallet()].map((w) => w.connect(chain.provider));
    for (const gasPayer of [signer!, heir!]) {
      await chain.provider.send('anvil_setBalance', [gasPayer.address, toQuantity(10n ** 18n)]);
    }
    // A harmless pre-hook (a view call through the trampoline): the cut does not ask the wallet
    // about A's signature, since a pre-hook may set one up; only the winner's simulation can
    // tell.
    const hooked = JSON.stringify({
      metadata: { hooks: { pre: [{ target: WETH, callData: '0x18160ddd', gasLimit: '30000' }] } },
    });
    const [a, b, wallet] = await walletPair(signer!, hooked);
    const [c, d] = await freshPair();
    await placeTrades(service.devnet, [a], { appData: hooked });
    // The wallet changes hands: A's signature no longer holds.
    await (
      await (wallet.connect(signer!) as Contract).getFunction('setOwner')(heir!.address)
    ).wait();
    for (const trade of [b, c, d]) await place(trade);

    // C, the only other WETH seller, settles with B or D; A wins no auction meanwhile. The
    // solver may pair C first and A with the DUSD seller left only in a later auction: an
    // auction whose winner with A would have reverted leaves A out, and says why.
    const settledOthers = async () =>
      (await Promise.all([b, c, d].map((t) => fulfilled(t.uid)))).filter(Boolean).length;
    const leftOut = async () =>
      (await ofType<AuctionClosedV5>('AuctionClosed')).filter((x) =>
        x.filtered.some((f) => f.uid === a.uid && f.reason === 'InvalidSignature'),
      );
    await waitFor(async () => (await settledOthers()) === 2 && (await leftOut()).length > 0, {
      timeoutMs: 20_000,
      description: 'two of the other orders fulfilled, and an auction that left A out',
    });
    expect(await fulfilled(a.uid)).to.equal(false);
    expect(await winningAuctions(a.uid)).to.deep.equal([]);
    const withoutA = await leftOut();
    expect(withoutA.every((x) => !x.orders.some((o) => o.uid === a.uid))).to.equal(true);
    // A's batches were dropped before they were recorded: nothing was sent to fail.
    const withA = [...(await auctionsWith(a.uid)), ...withoutA];
    expect(await failures(withA.map((x) => x.id))).to.deep.equal([]);

    await (
      await (wallet.connect(heir!) as Contract).getFunction('setOwner')(signer!.address)
    ).wait();
    await waitFor(async () => (await fulfilled(a.uid)) && (await settledOthers()) === 3, {
      timeoutMs: 20_000,
      description: 'A fulfilled with the order left',
    });
  });

  it('keeps an unmined settlement’s orders out of auctions until its deadline, records it as timed out, and still counts its late landing', async () => {
    const [a, b] = await matchingPair([2, 3]);
    // Half of another pair: no pool fills it at its limit (placed later, to change a cut).
    const [lone] = await freshPair();
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
      // After it, the pair is back in auctions. A cut that only gives the pair back is the cut
      // the winner's auction recorded: recorded again only with a change, which another order
      // (one no pool fills at its limit) brings.
      await waitFor(async () => Date.now() > Date.parse(auction.deadline), {
        timeoutMs: 10_000,
        description: 'the deadline passed',
      });
      await place(lone!);
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
    const trades = await shownTrades<{ txHash: string }>(service.devnet, a.uid);
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
