/**
 * The official SDK as CoW Swap drives it, against batchbook forking mainnet (issue 24): the test
 * run's chain-id-1 chain plays the upstream network (GPv2, the eth-flow contract and Uniswap V2 at
 * mainnet's addresses), batchbook forks it and serves it as `mainnet`, and `TradingSdk` quotes,
 * posts a swap order, posts eth-flow orders (`postSellNativeCurrencyOrder`, and a limit order
 * selling ETH, which takes the same path) and cancels one on chain (`onChainCancelOrder`). The
 * autopilot's built-in solver settles against the fork's pools; fills are read back through the
 * SDK and checked on chain.
 *
 * The trader signs with its own key through `@cowprotocol/sdk-viem-adapter`, whose eth-flow
 * transactions need their hex `value` and `gasLimit` made bigints before viem sends them (README,
 * "CoW Swap and the Explorer against a fork").
 */
import { expect } from 'chai';
import {
  OrderBookApi,
  OrderKind,
  OrderStatus,
  SupportedChainId,
  TradingSdk,
  setGlobalAdapter,
  type ApiBaseUrls,
  type EnrichedOrder,
} from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { Contract, parseEther, toQuantity, type JsonRpcProvider } from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  http as viemHttp,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { mainnet as mainnetChain } from 'viem/chains';
import { devnetProvider } from '../../src/chain/devnet/node-client.js';
import type { Address } from '../../src/domain/events.js';
import { ETH_FLOW_CONTRACT, networkByName } from '../../src/domain/networks.js';
import { sharedTestChain } from '../support/chain.js';
import { startForkService, type ForkService } from '../support/fork.js';
import { waitFor } from '../support/wait.js';

const MAINNET = networkByName('mainnet')!;
const WETH = MAINNET.wrappedNativeToken;
const [UNISWAP] = MAINNET.uniswapV2;
/** What the SDK takes for the chain's native currency. */
const ETH = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';
const ERC20 = ['function balanceOf(address) view returns (uint256)', 'function deposit() payable'];
const ROUTER = ['function getAmountsOut(uint256, address[]) view returns (uint256[])'];
const FILL_TIMEOUT_MS = 60_000;

describe('e2e: the SDK against a fork of mainnet, as CoW Swap drives it', function () {
  this.timeout(180_000);

  let forked: ForkService;
  let forkUrl: string;
  let fork: JsonRpcProvider;
  let client: PublicClient;
  let dusd: Address;
  let orderBookApi: OrderBookApi;

  before(async () => {
    const upstream = await sharedTestChain(1);
    dusd = upstream.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    forked = await startForkService(upstream.rpcUrl, { DEVNET_AUCTION_INTERVAL_MS: '200' });
    forkUrl = forked.forkUrl;
    fork = devnetProvider(forkUrl, 1);
    client = createPublicClient({ chain: mainnetChain, transport: viemHttp(forkUrl) });
    orderBookApi = new OrderBookApi({
      chainId: SupportedChainId.MAINNET,
      env: 'prod',
      baseUrls: { [SupportedChainId.MAINNET]: forked.service.mainnet } as ApiBaseUrls,
      backoffOpts: { numOfAttempts: 1 },
      limiterOpts: { tokensPerInterval: 100, interval: 'second' },
    });
  });
  after(async () => {
    fork?.destroy();
    await forked?.stop();
  });

  interface Trader {
    address: Address;
    key: Hex;
    sdk: TradingSdk;
  }

  /** A fresh wallet holding ETH on the fork, its SDK signing with its key. */
  async function newTrader(eth = '10'): Promise<Trader> {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await fork.send('anvil_setBalance', [account.address, toQuantity(parseEther(eth))]);
    const adapter = new ViemAdapter({ provider: client, signer: key });
    sendBigints(adapter);
    setGlobalAdapter(adapter);
    const sdk = new TradingSdk(
      // The adapter's own signer: given the key, the SDK would make another, unconverted one.
      { chainId: SupportedChainId.MAINNET, appCode: 'batchbook-e2e-fork', signer: adapter.signer },
      { orderBookApi },
      adapter,
    );
    return { address: account.address.toLowerCase() as Address, key, sdk };
  }

  /**
   * The viem adapter (0.3.17) hands viem the `value` and `gasLimit` of the SDK's eth-flow
   * transactions as hex strings, which viem serialises as they are: one with an odd number of
   * digits makes a transaction the node cannot decode. A client converts them.
   */
  function sendBigints(adapter: ViemAdapter): void {
    const { signer } = adapter;
    const send = signer.sendTransaction.bind(signer);
    signer.sendTransaction = (tx) =>
      send({
        ...tx,
        ...(tx.value === undefined ? {} : { value: BigInt(tx.value) }),
        ...(tx.gasLimit === undefined ? {} : { gasLimit: BigInt(tx.gasLimit) }),
      });
  }

  /** What CoW Swap's swap form asks the SDK for: sell `amount` of `sellToken` for DUSD. */
  const sale = (sellToken: string, amount: bigint) => ({
    kind: OrderKind.SELL,
    sellToken,
    sellTokenDecimals: 18,
    buyToken: dusd,
    buyTokenDecimals: 18,
    amount: amount.toString(),
  });

  const balanceOf = (token: Address, owner: Address) =>
    new Contract(token, ERC20, fork).getFunction('balanceOf')(owner) as Promise<bigint>;

  /** The order once batchbook reads it with `status`; eth-flow orders appear once indexed. */
  async function orderWith(uid: string, status: OrderStatus): Promise<EnrichedOrder> {
    let order: EnrichedOrder | null = null;
    await waitFor(
      async () => {
        order = await orderBookApi.getOrder(uid).catch(() => null);
        return order?.status === status;
      },
      { timeoutMs: FILL_TIMEOUT_MS, intervalMs: 100, description: `order ${uid} ${status}` },
    );
    return order!;
  }

  it('quotes from the fork’s pools at mainnet’s addresses, and fills a swap order through them', async () => {
    const trader = await newTrader();
    const sold = parseEther('1');
    // As CoW Swap's wrap button and approval do: WETH9's deposit, then the SDK's approval.
    const wallet = createWalletClient({
      account: privateKeyToAccount(trader.key),
      chain: mainnetChain,
      transport: viemHttp(forkUrl),
    });
    const deposit = await wallet.sendTransaction({ to: WETH, data: '0xd0e30db0', value: sold });
    await client.waitForTransactionReceipt({ hash: deposit });
    const approval = await trader.sdk.approveCowProtocol({
      tokenAddress: WETH,
      amount: sold,
      chainId: SupportedChainId.MAINNET,
    });
    await client.waitForTransactionReceipt({ hash: approval as Hex });

    const { quoteResults, postSwapOrderFromQuote } = await trader.sdk.getQuote(sale(WETH, sold));
    const { quote } = quoteResults.quoteResponse;
    const router = new Contract(UNISWAP!.router, ROUTER, fork).getFunction('getAmountsOut');
    // The reference's quote: the pools' price for the whole amount, scaled to what is left of
    // it after the fee.
    const [, poolOut] = (await router(sold, [WETH, dusd])) as bigint[];
    expect(BigInt(quote.buyAmount), 'the quote is mainnet’s router’s price on the fork').to.equal(
      (poolOut! * BigInt(quote.sellAmount)) / sold,
    );

    const { orderId } = await postSwapOrderFromQuote();
    const filled = await orderWith(orderId, OrderStatus.FULFILLED);
    expect(filled).to.include({ owner: trader.address, sellToken: WETH, buyToken: dusd });
    const trades = await orderBookApi.getTrades({ orderUid: orderId });
    expect(trades).to.have.length(1);
    expect(trades[0]!.txHash).to.be.a('string');
    expect(await balanceOf(dusd, trader.address)).to.equal(BigInt(filled.executedBuyAmount));
    expect(BigInt(filled.executedBuyAmount) >= BigInt(filled.buyAmount)).to.equal(true);
  });

  it('posts an eth-flow order with postSellNativeCurrencyOrder and follows it to its fill', async () => {
    const trader = await newTrader();
    const sold = parseEther('0.5');
    const { orderId, txHash } = await trader.sdk.postSellNativeCurrencyOrder(sale(ETH, sold));
    const placement = await client.waitForTransactionReceipt({ hash: txHash as Hex });
    expect(placement.status).to.equal('success');
    expect(orderId, 'owned by the eth-flow contract, for ever').to.match(
      new RegExp(`${ETH_FLOW_CONTRACT.slice(2)}ffffffff$`),
    );

    // The SDK reads an eth-flow order as its trader's sale of ETH until its own deadline.
    const filled = await orderWith(orderId, OrderStatus.FULFILLED);
    expect(filled).to.deep.include({
      owner: trader.address,
      onchainUser: trader.address,
      sellToken: ETH,
      buyToken: dusd,
      signingScheme: 'eip1271',
      signature: ETH_FLOW_CONTRACT,
      executedSellAmount: filled.sellAmount,
    });
    const placed = BigInt(filled.sellAmount);
    expect(placed > 0n && placed <= sold).to.equal(true);
    const gas = placement.gasUsed * placement.effectiveGasPrice;
    expect(await fork.getBalance(trader.address)).to.equal(parseEther('10') - placed - gas);
    expect(await orderBookApi.getTrades({ orderUid: orderId })).to.have.length(1);
    expect(await balanceOf(dusd, trader.address)).to.equal(BigInt(filled.executedBuyAmount));
    expect(BigInt(filled.executedBuyAmount) >= BigInt(filled.buyAmount)).to.equal(true);
    expect(await fork.getBalance(ETH_FLOW_CONTRACT), 'the contract keeps none of its ETH').to.equal(
      0n,
    );
  });

  it('cancels an eth-flow order on chain with onChainCancelOrder, and the ETH goes back', async () => {
    const trader = await newTrader();
    const sold = parseEther('0.25');
    // A limit order selling ETH takes the SDK's eth-flow path too; asking twice the pools'
    // price, no auction fills it before its cancellation.
    const { quoteResults } = await trader.sdk.getQuote(sale(ETH, sold));
    const { quoteResponse } = quoteResults;
    const { orderId, txHash } = await trader.sdk.postLimitOrder({
      kind: OrderKind.SELL,
      sellToken: ETH,
      sellTokenDecimals: 18,
      buyToken: dusd,
      buyTokenDecimals: 18,
      sellAmount: sold.toString(),
      buyAmount: (BigInt(quoteResponse.quote.buyAmount) * 2n).toString(),
      quoteId: quoteResponse.id!,
    });
    await client.waitForTransactionReceipt({ hash: txHash as Hex });
    await orderWith(orderId, OrderStatus.OPEN);

    const before = await fork.getBalance(trader.address);
    const cancellation = await trader.sdk.onChainCancelOrder({
      orderUid: orderId,
      chainId: SupportedChainId.MAINNET,
    });
    const receipt = await client.waitForTransactionReceipt({ hash: cancellation as Hex });
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(await fork.getBalance(trader.address)).to.equal(before + sold - gas);

    const cancelled = await orderWith(orderId, OrderStatus.CANCELLED);
    expect(cancelled).to.include({ invalidated: true, executedSellAmount: '0' });
  });
});
