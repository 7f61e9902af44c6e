/**
 * Eth-flow orders through the service on a devnet of their own: the indexer records the
 * contract's placements (with `ethflowData`, `onchainUser` and `onchainOrderData`, owned and
 * signed by the contract), the autopilot auctions and settles them (the settlement wraps the
 * contract's ETH and pulls the WETH from it), an on-chain invalidation cancels one, a refund
 * after its trader's deadline is recorded, a reorg takes a placement back, and placements the
 * contract did not make are recorded with a placement error without stopping the indexer.
 */
import { expect } from 'chai';
import { Contract, Interface, Wallet, parseEther, toQuantity } from 'ethers';
import { sendFromNode } from '../../../src/chain/devnet/node-client.js';
import type { Address, Hex } from '../../../src/domain/events.js';
import { WRAP_ALL_CALL } from '../../../src/domain/eth-flow.js';
import { ETH_FLOW_CONTRACT } from '../../../src/domain/networks.js';
import type { ApiOrder } from '../../../src/queries/order-view.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { callEthFlow, ethFlowUid, type EthFlowOrder } from '../../support/eth-flow.js';
import {
  controlledClock,
  http,
  startTestService,
  type ControlledClock,
  type TestService,
} from '../../support/service.js';
import { compileContract } from '../../support/solidity.js';
import { waitFor } from '../../support/wait.js';

const BALANCE_OF = ['function balanceOf(address) view returns (uint256)'];
const IMPOSTOR = compileContract('EthFlowImpostor.sol', 'EthFlowImpostor');

describe('eth-flow orders', function () {
  this.timeout(120_000);

  let chain: TestChain;
  let service: TestService;
  let clock: ControlledClock;
  const trader = Wallet.createRandom().address.toLowerCase() as Address;
  const stranger = Wallet.createRandom().address.toLowerCase() as Address;

  before(async () => {
    // A chain of its own: its settlements, reverts and impostors stay out of other suites.
    chain = await startTestChain();
    for (const who of [trader, stranger])
      await chain.provider.send('anvil_setBalance', [who, toQuantity(parseEther('100'))]);
    clock = controlledClock();
    service = await startTestService({
      env: { DEVNET_RPC_URL: chain.rpcUrl, DEVNET_AUCTION_INTERVAL_MS: '200' },
      clock,
    });
  });
  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const dusd = () => chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
  const chainNow = async () => (await chain.provider.getBlock('latest'))!.timestamp;
  let nextQuoteId = 1n;
  /**
   * Sells `eth` for DUSD, asking `dusdAsked` (the pools give about 3,000 a WETH). Each order has
   * app data of its own: neither the deadline nor the quote id is part of the order's hash.
   */
  const ethFlowOrder = async (eth: string, dusdAsked: string, validFor = 3600) => {
    const quoteId = nextQuoteId++;
    return {
      buyToken: dusd(),
      receiver: trader,
      sellAmount: parseEther(eth),
      buyAmount: parseEther(dusdAsked),
      appData: `0x${quoteId.toString(16).padStart(64, '0')}` as Hex,
      feeAmount: 0n,
      validTo: (await chainNow()) + validFor,
      partiallyFillable: false,
      quoteId,
    } satisfies EthFlowOrder;
  };
  const uidOf = (order: EthFlowOrder) =>
    ethFlowUid(order, chain.deployment.weth.address, chain.deployment.chainId);
  const read = async (uid: string) =>
    http<ApiOrder>('GET', `${service.devnet}/api/v1/orders/${uid}`);
  const until = async (uid: string, check: (order: ApiOrder) => boolean, what: string) => {
    let last: ApiOrder | undefined;
    await waitFor(
      async () => {
        const found = await read(uid);
        if (found.status !== 200 && found.status !== 404)
          throw new Error(`GET ${uid}: ${found.status} ${found.text}`);
        last = found.status === 200 ? found.body : undefined;
        return last !== undefined && check(last);
      },
      { timeoutMs: 30_000, description: what },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last read: ${JSON.stringify(last)}`);
    });
    return last!;
  };

  it('records a placement as the reference shows it, and settles it like any order', async () => {
    const order = await ethFlowOrder('1', '2500');
    await callEthFlow(chain.provider, trader, 'createOrder', order);
    const uid = uidOf(order);
    const placed = await until(uid, () => true, 'the placement');
    expect(placed).to.deep.include({
      owner: ETH_FLOW_CONTRACT,
      sellToken: chain.deployment.weth.address,
      validTo: 0xffffffff,
      signingScheme: 'eip1271',
      signature: ETH_FLOW_CONTRACT,
      class: 'limit',
      onchainUser: trader,
      ethflowData: { userValidTo: order.validTo, refundTxHash: null, isRefunded: false },
      onchainOrderData: { sender: trader, placementError: null },
    });
    expect(placed.interactions.pre).to.deep.equal([
      { target: ETH_FLOW_CONTRACT, value: '0', callData: WRAP_ALL_CALL },
    ]);
    const listed = await http<ApiOrder[]>(
      'GET',
      `${service.devnet}/api/v1/account/${trader}/orders`,
    );
    expect(listed.body.map((o) => o.uid)).to.include(uid);

    const filled = await until(uid, (o) => o.status === 'fulfilled', 'the fill');
    expect(filled.executedSellAmount).to.equal(order.sellAmount.toString());
    const received: bigint = await new Contract(dusd(), BALANCE_OF, chain.provider).getFunction(
      'balanceOf',
    )(trader);
    expect(received >= order.buyAmount).to.equal(true);
  });

  it('cancels an order its trader invalidates on chain', async () => {
    // Asking twice the pools' price: no auction fills it meanwhile.
    const order = await ethFlowOrder('1', '6000');
    await callEthFlow(chain.provider, trader, 'createOrder', order);
    const uid = uidOf(order);
    await until(uid, (o) => o.status === 'open', 'the placement');
    await callEthFlow(chain.provider, trader, 'invalidateOrder', order);
    const cancelled = await until(uid, (o) => o.status === 'cancelled', 'the invalidation');
    expect(cancelled.invalidated).to.equal(true);
    expect(cancelled.ethflowData!.isRefunded).to.equal(false);
  });

  it('records the refund of an order past its trader’s deadline', async () => {
    const order = await ethFlowOrder('1', '6000', 120);
    await callEthFlow(chain.provider, trader, 'createOrder', order);
    const uid = uidOf(order);
    await until(uid, (o) => o.status === 'open', 'the placement');
    await chain.provider.send('evm_increaseTime', [300]);
    await chain.mine();
    clock.advance(300);
    await callEthFlow(chain.provider, stranger, 'invalidateOrder', order);
    const refunded = await until(uid, (o) => o.ethflowData!.isRefunded, 'the refund');
    expect(refunded.status).to.equal('expired');
    const receipt = await chain.provider.getTransactionReceipt(refunded.ethflowData!.refundTxHash!);
    expect(receipt!.from.toLowerCase()).to.equal(stranger);
  });

  it('takes back a placement a reorg removed', async () => {
    const snapshot = await chain.snapshot();
    const order = await ethFlowOrder('1', '6000');
    await callEthFlow(chain.provider, trader, 'createOrder', order);
    const uid = uidOf(order);
    await until(uid, () => true, 'the placement');
    await chain.revert(snapshot);
    await chain.mine(3);
    await waitFor(async () => (await read(uid)).status === 404, {
      timeoutMs: 30_000,
      description: 'the placement taken back',
    });
  });

  it('records placements the contract did not make with a placement error, and indexes on', async () => {
    const code = await chain.provider.getCode(ETH_FLOW_CONTRACT);
    const impostor = new Interface(IMPOSTOR.abi);
    const runtime = await chain.provider.send('eth_call', [{ data: IMPOSTOR.bytecode }, 'latest']);
    await chain.provider.send('anvil_setCode', [ETH_FLOW_CONTRACT, runtime]);
    const order = await ethFlowOrder('1', '6000');
    const weth = chain.deployment.weth.address;
    const settlementOrder = [
      weth,
      order.buyToken,
      order.receiver,
      order.sellAmount,
      order.buyAmount,
      0xffffffff,
      order.appData,
      0n,
      '0xf3b277728b3fee749481eb3e0b3b48980dbbab78658fc419025cb16eee346775',
      false,
      '0x5a28e9363bb942b639270062aa6bb295f434bcdfc42c97267bf003f272060dc9',
      '0x5a28e9363bb942b639270062aa6bb295f434bcdfc42c97267bf003f272060dc9',
    ];
    const data = `0x${order.quoteId.toString(16).padStart(16, '0')}${order.validTo.toString(16).padStart(8, '0')}`;
    const emit = (fn: string, args: unknown[]) =>
      sendFromNode(chain.provider, {
        from: trader,
        to: ETH_FLOW_CONTRACT,
        data: impostor.encodeFunctionData(fn, args),
      });
    try {
      // The contract's own order as it would state it, but never held by it; then one owned by
      // the trader; then a log that is no placement at all.
      await emit('place', [settlementOrder, [0, ETH_FLOW_CONTRACT], data]);
      await emit('place', [settlementOrder, [0, trader], data]);
      await emit('placeRaw', ['0x1234']);
    } finally {
      await chain.provider.send('anvil_setCode', [ETH_FLOW_CONTRACT, code]);
    }
    const asContract = await until(uidOf(order), () => true, 'the unheld placement');
    expect(asContract.onchainOrderData!.placementError).to.equal('invalidOrderData');
    expect(asContract.status).to.equal('cancelled');
    const asTrader = `${uidOf(order).slice(0, 66)}${trader.slice(2)}ffffffff`;
    const owned = await until(asTrader, () => true, 'the placement owned by the trader');
    expect(owned.onchainOrderData!.placementError).to.equal('invalidOrderData');

    // The indexer goes on: a genuine placement after them is recorded, and none of the above
    // enters an auction.
    const genuine = await ethFlowOrder('1', '6000');
    await callEthFlow(chain.provider, trader, 'createOrder', genuine);
    await until(uidOf(genuine), (o) => o.status === 'open', 'the genuine placement');
    const auction = await http<{ orders: { uid: string }[] }>(
      'GET',
      `${service.devnet}/api/v1/auction`,
    );
    const auctioned = auction.body.orders.map((o) => o.uid);
    expect(auctioned).to.not.include(uidOf(order));
    expect(auctioned).to.not.include(asTrader);
  });
});
