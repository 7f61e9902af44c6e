/**
 * Why an order of a winner that would revert cannot settle, asked of the real devnet: the vault
 * relayer must be able to pull what the trade sells (and a fill-or-kill order's whole fee), and
 * an EIP-1271 owner must still accept the signature. Orders whose pre-hooks may approve or fund
 * them are not held against their owner.
 */
import { expect } from 'chai';
import { Wallet } from 'ethers';
import { createOrderChainChecks } from '../../../src/chain/order-checks.js';
import { createChainRpc, type ChainRpc } from '../../../src/chain/rpc.js';
import { orderProblems } from '../../../src/auction/order-probe.js';
import type {
  Address,
  AuctionOrder,
  Hex,
  OrderData,
  OrderUid,
  SolutionOrder,
} from '../../../src/domain/events.js';
import { createLogger } from '../../../src/logger.js';
import { networkByName } from '../../../src/domain/networks.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { deployEip1271Wallet, orderIdentity, sellOrder, signTrade } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';

describe('order probe: why an order cannot settle now', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let rpc: ChainRpc;
  let sequence = 0;

  before(async () => {
    chain = await sharedTestChain();
    rpc = createChainRpc(networkByName('devnet')!, chain.rpcUrl);
  });
  after(() => rpc?.close());

  const problems = (orders: AuctionOrder[], trades: SolutionOrder[]) =>
    orderProblems(
      createOrderChainChecks(rpc, {
        settlementContract: chain.deployment.settlement,
        vaultRelayer: chain.deployment.vaultRelayer,
      }),
      new Map(orders.map((o) => [o.uid, o])),
      trades,
      createLogger('silent'),
    );
  const token = () => chain.deployment.tokens[0]!.address;
  const data = (fields: Partial<OrderData> = {}): OrderData =>
    sellOrder({
      sellToken: token(),
      buyToken: chain.deployment.tokens[1]!.address,
      sellAmount: '1000',
      buyAmount: String(900n + BigInt(++sequence)),
      ...fields,
    });

  /** The order as the auction holds it, and its trade selling `sold` of it. */
  function auctionOrder(
    uid: OrderUid,
    owner: Address,
    order: OrderData,
    signed: Pick<AuctionOrder, 'signingScheme' | 'signature'>,
    extra: Partial<AuctionOrder> = {},
  ): AuctionOrder {
    return {
      ...order,
      uid,
      owner,
      created: 1_700_000_000,
      executed: '0',
      preInteractions: [],
      postInteractions: [],
      class: 'limit',
      protocolFees: [],
      ...signed,
      ...extra,
    };
  }
  const trade = (o: AuctionOrder, sold = o.sellAmount): SolutionOrder => ({
    uid: o.uid,
    sellToken: o.sellToken,
    buyToken: o.buyToken,
    executedAmount: sold,
    fee: '0',
    sellAmount: sold,
    buyAmount: o.buyAmount,
  });

  /** An ECDSA order of a new owner holding `balance` with `allowance` to the relayer. */
  async function ecdsaOrder(
    balance: bigint,
    allowance: bigint,
    fields: Partial<OrderData> = {},
    extra: Partial<AuctionOrder> = {},
  ): Promise<AuctionOrder> {
    const wallet = newWallet();
    await chain.fund(wallet.address as Address, token(), balance, { approve: allowance });
    const signed = await signTrade(chain, wallet, data(fields));
    return auctionOrder(signed.uid, signed.owner, signed.order, signed, extra);
  }

  it('names a missing allowance and a missing balance, counting a fill-or-kill order’s fee', async () => {
    const short = await ecdsaOrder(10_000n, 1009n, { feeAmount: '10' });
    const enough = await ecdsaOrder(10_000n, 1010n, { feeAmount: '10' });
    const poor = await ecdsaOrder(999n, 10_000n);
    const found = await problems(
      [short, enough, poor],
      [short, enough, poor].map((o) => trade(o)),
    );
    expect(Object.fromEntries(found)).to.deep.equal({
      [short.uid]: 'InsufficientAllowance',
      [poor.uid]: 'InsufficientBalance',
    });
  });

  it('asks a partially fillable order for what the trade sells of it', async () => {
    const partial = await ecdsaOrder(10_000n, 600n, { partiallyFillable: true });
    expect((await problems([partial], [trade(partial, '600')])).size).to.equal(0);
    expect(Object.fromEntries(await problems([partial], [trade(partial, '601')]))).to.deep.equal({
      [partial.uid]: 'InsufficientAllowance',
    });
  });

  it('does not hold an order whose pre-hooks may approve it, or one paid from the vault', async () => {
    const hook = {
      target: chain.deployment.hooksTrampoline,
      value: '0',
      callData: '0x' as Hex,
    };
    const hooked = await ecdsaOrder(10_000n, 0n, {}, { preInteractions: [hook] });
    const fromVault = await ecdsaOrder(10_000n, 0n, {}, { sellTokenBalance: 'external' });
    const found = await problems([hooked, fromVault], [trade(hooked), trade(fromVault)]);
    expect(found.size).to.equal(0);
  });

  it('names an EIP-1271 signature its owner contract no longer accepts', async () => {
    const signer = new Wallet(chain.deployment.accounts[0]!.privateKey);
    const contract = await deployEip1271Wallet(chain, signer);
    const order = data();
    const { uid, digest } = orderIdentity(chain, order, contract.address);
    const signedBy = (wallet: Wallet) =>
      auctionOrder(uid, contract.address, order, {
        signingScheme: 'eip1271',
        signature: wallet.signingKey.sign(digest).serialized as Hex,
      });
    // The owner's signature is accepted: the wallet holds nothing, and that is not asked.
    expect((await problems([signedBy(signer)], [trade(signedBy(signer))])).size).to.equal(0);
    const stranger = signedBy(newWallet());
    expect(Object.fromEntries(await problems([stranger], [trade(stranger)]))).to.deep.equal({
      [uid]: 'InvalidEip1271Signature',
    });
  });
});
