/**
 * The devnet's CoWSwapEthFlow, where the SDK expects it on mainnet, behaving as the public one:
 * the order it places is the settlement's (WETH sold, never expiring), signed by EIP-1271 while
 * its trader's record stands, withdrawn by its trader alone while valid and refunded to its
 * trader by anyone once expired.
 */
import { expect } from 'chai';
import { Contract, Interface, MaxUint256, Wallet, parseEther, toQuantity } from 'ethers';
import { weth9Artifact } from '../../../src/chain/devnet/artifacts.js';
import type { Address, Hex } from '../../../src/domain/events.js';
import {
  ETH_FLOW_CONTRACT,
  SETTLEMENT_CONTRACT,
  VAULT_RELAYER,
} from '../../../src/domain/networks.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { ETH_FLOW, callEthFlow, ethFlowUid, type EthFlowOrder } from '../../support/eth-flow.js';

const WETH9 = new Interface(weth9Artifact().abi);
const MAGIC = '0x1626ba7e';

describe('devnet CoWSwapEthFlow', function () {
  this.timeout(30_000);

  let chain: TestChain;
  let snapshot: string;
  const trader = Wallet.createRandom().address.toLowerCase() as Address;
  const other = Wallet.createRandom().address.toLowerCase() as Address;

  before(async () => {
    chain = await sharedTestChain();
  });
  beforeEach(async () => {
    snapshot = await chain.snapshot();
    for (const who of [trader, other])
      await chain.provider.send('anvil_setBalance', [who, toQuantity(parseEther('10'))]);
  });
  afterEach(async () => {
    await chain.revert(snapshot);
  });

  const now = async () => (await chain.provider.getBlock('latest'))!.timestamp;
  const ethFlowOrder = (validTo: number): EthFlowOrder => ({
    buyToken: chain.deployment.tokens[0]!.address,
    receiver: trader,
    sellAmount: parseEther('1'),
    buyAmount: 1000n,
    appData: `0x${'ab'.repeat(32)}`,
    feeAmount: 0n,
    validTo,
    partiallyFillable: false,
    quoteId: 42n,
  });
  const uidOf = (o: EthFlowOrder) =>
    ethFlowUid(o, chain.deployment.weth.address, chain.deployment.chainId);
  const digestOf = (o: EthFlowOrder) => uidOf(o).slice(0, 66) as Hex;
  const send = (from: Address, fn: 'createOrder' | 'invalidateOrder', o: EthFlowOrder) =>
    callEthFlow(chain.provider, from, fn, o);
  const logsOf = async (name: string) =>
    (
      await chain.provider.getLogs({
        address: ETH_FLOW_CONTRACT,
        topics: [ETH_FLOW.getEvent(name)!.topicHash],
        fromBlock: 'latest',
      })
    ).map((l) => ETH_FLOW.parseLog(l)!);
  const ethFlow = () => new Contract(ETH_FLOW_CONTRACT, ETH_FLOW, chain.provider);

  it('is placed where the SDK sends eth-flow orders, wired to this chain and approved', async () => {
    expect((await ethFlow().getFunction('cowSwapSettlement')()).toLowerCase()).to.equal(
      SETTLEMENT_CONTRACT,
    );
    const weth = new Contract(chain.deployment.weth.address, WETH9, chain.provider);
    expect(await weth.getFunction('allowance')(ETH_FLOW_CONTRACT, VAULT_RELAYER)).to.equal(
      MaxUint256,
    );
  });

  it('places the settlement order it signs, and lets only its trader withdraw it', async () => {
    const order = ethFlowOrder((await now()) + 3600);
    await send(trader, 'createOrder', order);
    const [placement] = await logsOf('OrderPlacement');
    expect(placement!.args.sender.toLowerCase()).to.equal(trader);
    expect(placement!.args.order.validTo).to.equal(0xffffffffn);
    expect(placement!.args.signature.data.toLowerCase()).to.equal(ETH_FLOW_CONTRACT);
    expect(placement!.args.data).to.equal(
      `0x${(42).toString(16).padStart(16, '0')}${order.validTo.toString(16).padStart(8, '0')}`,
    );
    const digest = digestOf(order);
    expect(await ethFlow().getFunction('isValidSignature')(digest, '0x')).to.equal(MAGIC);
    await send(trader, 'createOrder', order).then(
      () => expect.fail('placed twice'),
      (error: Error) => expect(error.message).to.match(/revert/),
    );

    await send(other, 'invalidateOrder', order).then(
      () => expect.fail('withdrawn by another'),
      (error: Error) => expect(error.message).to.match(/revert/),
    );
    const before = await chain.provider.getBalance(trader);
    await send(trader, 'invalidateOrder', order);
    const [invalidation] = await logsOf('OrderInvalidation');
    expect(invalidation!.args.orderUid).to.equal(uidOf(order));
    expect((await chain.provider.getBalance(trader)) > before).to.equal(true);
    expect(await ethFlow().getFunction('isValidSignature')(digest, '0x')).to.not.equal(MAGIC);
  });

  it('refunds an expired order to its trader, at anyone’s request', async () => {
    const order = ethFlowOrder((await now()) + 60);
    await send(trader, 'createOrder', order);
    await chain.provider.send('evm_increaseTime', [120]);
    await chain.mine();
    expect(await ethFlow().getFunction('isValidSignature')(digestOf(order), '0x')).to.not.equal(
      MAGIC,
    );
    const before = await chain.provider.getBalance(trader);
    await send(other, 'invalidateOrder', order);
    const [refund] = await logsOf('OrderRefund');
    expect(refund!.args.refunder.toLowerCase()).to.equal(other);
    expect(await chain.provider.getBalance(trader)).to.equal(before + order.sellAmount);
  });
});
