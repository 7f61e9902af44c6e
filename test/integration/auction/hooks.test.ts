/**
 * Order hooks run through the HooksTrampoline, never as the settlement contract: on a chain of
 * the suite's own, orders with hooks placed over HTTP are settled by the service's autopilot
 * and driver through the real GPv2Settlement. A pre-hook approving an EOA acts as the
 * trampoline (the settlement's own allowance stays 0), a reverting hook does not stop the batch,
 * and an order recorded with raw hook interactions (placed before the trampoline) never settles.
 */
import { expect } from 'chai';
import { Contract, Interface, MaxUint256, Wallet, parseUnits } from 'ethers';
import { hooksTrampolineArtifact } from '../../../src/chain/devnet/artifacts.js';
import type {
  Address,
  DomainEvent,
  Hex,
  Interaction,
  OrderPlacedV1,
} from '../../../src/domain/events.js';
import {
  DEVNET_DEMO_TOKENS,
  HOOKS_TRAMPOLINE,
  SETTLEMENT_CONTRACT,
} from '../../../src/domain/networks.js';
import { appendEach } from '../../support/append-events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { signCowPair, type SignedTrade } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { placeTrades } from '../../support/place.js';
import { waitFor } from '../../support/wait.js';
import { recordedAuctions } from '../../support/auctions.js';

const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const DUSD = DEVNET_DEMO_TOKENS.DUSD;
const ERC20 = new Interface([
  'function approve(address, uint256) returns (bool)',
  'function transfer(address, uint256) returns (bool)',
  'function allowance(address, address) view returns (uint256)',
]);
const TRAMPOLINE = new Interface(hooksTrampolineArtifact().abi);

interface AppHook {
  target: Address;
  callData: Hex;
  gasLimit: string;
}

const appDataWith = (hooks: { pre?: AppHook[]; post?: AppHook[] }) =>
  JSON.stringify({ metadata: { hooks } });

/** The interaction the order's GET shows for `hooks`: one `execute` on the trampoline. */
const trampolined = (hooks: AppHook[]): Interaction => ({
  target: HOOKS_TRAMPOLINE,
  value: '0',
  callData: TRAMPOLINE.encodeFunctionData('execute', [
    hooks.map((h) => ({ ...h, gasLimit: BigInt(h.gasLimit) })),
  ]) as Hex,
});

describe('order hooks: run by the HooksTrampoline, never as the settlement', function () {
  this.timeout(90_000);

  let chain: TestChain;
  let service: TestService;
  const traders = [newWallet(), newWallet()] as [Wallet, Wallet];
  /** The EOA the hooks try to give the settlement's tokens to. */
  const attacker = newWallet().address.toLowerCase() as Address;

  before(async () => {
    chain = await startTestChain();
    await chain.fund(traders[0].address as Address, WETH, parseUnits('5', 18));
    await chain.fund(traders[1].address as Address, DUSD, parseUnits('20000', 18));
    service = await startTestService({
      env: { DEVNET_RPC_URL: chain.rpcUrl, DEVNET_AUCTION_INTERVAL_MS: '100' },
    });
  });

  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const allowance = (token: Address, owner: Address, spender: Address) =>
    new Contract(token, ERC20, chain.provider).getFunction('allowance')(
      owner,
      spender,
    ) as Promise<bigint>;

  const place = (trade: SignedTrade, appData: string) =>
    placeTrades(service.devnet, [trade], { appData });

  const order = async (uid: string) =>
    (
      await http<{ status: string; interactions: { pre: Interaction[]; post: Interaction[] } }>(
        'GET',
        `${service.devnet}/api/v1/orders/${uid}`,
      )
    ).body;
  const fulfilled = async (uid: string) => (await order(uid)).status === 'fulfilled';
  const auctions = () => recordedAuctions(service.ledger);

  it('settles an order whose pre-hook approves an EOA: the trampoline approved it, not the settlement', async () => {
    const approve: AppHook = {
      target: DUSD,
      callData: ERC20.encodeFunctionData('approve', [attacker, MaxUint256]) as Hex,
      gasLimit: '100000',
    };
    // The trampoline holds no DUSD: this hook reverts, and the batch goes on.
    const reverting: AppHook = {
      target: DUSD,
      callData: ERC20.encodeFunctionData('transfer', [attacker, 1n]) as Hex,
      gasLimit: '100000',
    };
    const appData = [appDataWith({ pre: [approve] }), appDataWith({ post: [reverting] })] as const;
    const [a, b] = await signCowPair(chain, traders, appData);
    await place(a, appData[0]);
    await place(b, appData[1]);

    expect((await order(a.uid)).interactions).to.deep.equal({
      pre: [trampolined([approve])],
      post: [],
    });
    expect((await order(b.uid)).interactions).to.deep.equal({
      pre: [],
      post: [trampolined([reverting])],
    });

    await waitFor(async () => (await fulfilled(a.uid)) && (await fulfilled(b.uid)), {
      timeoutMs: 30_000,
      description: 'both orders with hooks fulfilled',
    });
    expect(await allowance(DUSD, SETTLEMENT_CONTRACT, attacker)).to.equal(0n);
    expect(await allowance(DUSD, HOOKS_TRAMPOLINE, attacker)).to.equal(MaxUint256);
  });

  it('never settles an order recorded with raw hook interactions: the cut filters it out', async () => {
    const [a, b] = await signCowPair(chain, traders);
    // As placed before hooks went through the trampoline: the hook calls DUSD directly.
    const raw: Interaction = {
      target: DUSD,
      value: '0',
      callData: ERC20.encodeFunctionData('approve', [attacker, 1n]) as Hex,
    };
    const legacy: OrderPlacedV1 = {
      network: 'devnet',
      uid: a.uid as OrderPlacedV1['uid'],
      owner: a.owner,
      order: a.order,
      signingScheme: a.signingScheme,
      signature: a.signature,
      class: 'limit',
      creationDate: new Date().toISOString(),
      settlementContract: SETTLEMENT_CONTRACT,
      fullAppData: '{}',
      quoteId: null,
      quote: null,
      interactions: { pre: [raw], post: [] },
    };
    await appendEach(service.ledger, [{ type: 'OrderPlaced', data: legacy } as DomainEvent]);
    await place(b, '{}');

    await waitFor(
      async () =>
        (await auctions()).some((x) =>
          x.filtered.some((f) => f.uid === a.uid && f.reason === 'UntrampolinedInteractions'),
        ),
      { timeoutMs: 20_000, description: 'the legacy order filtered out' },
    );
    const taken = (await auctions()).filter((x) => x.orders.some((o) => o.uid === a.uid));
    expect(taken).to.deep.equal([]);
    expect(await fulfilled(a.uid)).to.equal(false);
    expect(await allowance(DUSD, SETTLEMENT_CONTRACT, attacker)).to.equal(0n);
  });
});
