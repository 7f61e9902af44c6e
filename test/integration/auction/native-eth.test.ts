/**
 * Orders buying native ETH (buy token `0xeeee…`) settle through the real GPv2Settlement: the
 * built-in solver trades them as wrapped ETH and the settlement unwraps what they receive and
 * pays it to them in ETH, whether the WETH comes from an opposite order or from a pool.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import type { Address } from '../../../src/domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../../../src/domain/networks.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { sellOrder, signTrade, type SignedTrade } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import { placeTrades } from '../../support/place.js';
import { shownTrades } from '../../support/trades.js';
import { waitFor } from '../../support/wait.js';

describe('orders buying native ETH', function () {
  this.timeout(90_000);

  let chain: TestChain;
  let service: TestService;
  let weth: Address;
  let dusd: Address;

  before(async () => {
    chain = await startTestChain();
    service = await startTestService({
      env: { DEVNET_RPC_URL: chain.rpcUrl, DEVNET_AUCTION_INTERVAL_MS: '100' },
    });
    weth = chain.deployment.weth.address;
    dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
  });

  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const E18 = 10n ** 18n;

  async function owner(token: Address, amount: bigint): Promise<Wallet> {
    const wallet = newWallet();
    await chain.fund(wallet.address as Address, token, amount);
    return wallet;
  }

  const place = (trade: SignedTrade) => placeTrades(service.devnet, [trade]);

  const fulfilled = async (uid: string) =>
    (await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${uid}`)).body
      .status === 'fulfilled';

  /** What the order's one trade paid its receiver, as the API shows it. */
  const bought = async (uid: string) => {
    const [trade, ...more] = await shownTrades<{ buyAmount: string; buyToken: string }>(
      service.devnet,
      uid,
    );
    expect(more).to.deep.equal([]);
    expect(trade!.buyToken).to.equal(NATIVE_TOKEN_MARKER);
    return BigInt(trade!.buyAmount);
  };

  /** Places a DUSD seller's order for ETH (with its counterparts), and checks the ETH it gets. */
  async function settlesInEth(
    seller: Wallet,
    ethOrder: SignedTrade,
    others: readonly SignedTrade[] = [],
  ): Promise<void> {
    const before = await chain.provider.getBalance(seller.address);
    for (const trade of [ethOrder, ...others]) await place(trade);
    await waitFor(
      async () =>
        (await Promise.all([ethOrder, ...others].map((t) => fulfilled(t.uid)))).every(Boolean),
      { timeoutMs: 30_000, description: 'the orders fulfilled' },
    );
    const paid = (await chain.provider.getBalance(seller.address)) - before;
    expect(paid >= BigInt(ethOrder.order.buyAmount), 'at least its limit').to.equal(true);
    expect(paid).to.equal(await bought(ethOrder.uid));
  }

  it('pays an order its ETH from an opposite order’s WETH (a coincidence of wants)', async () => {
    const [wethSeller, dusdSeller] = [await owner(weth, 2n * E18), await owner(dusd, 4000n * E18)];
    const wethSold = E18 + 7n;
    const dusdSold = wethSold * 3000n;
    const asked = (amount: bigint) => String((amount * 999n) / 1000n);
    const buyingEth = await signTrade(
      chain,
      dusdSeller,
      sellOrder({
        sellToken: dusd,
        buyToken: NATIVE_TOKEN_MARKER,
        sellAmount: String(dusdSold),
        buyAmount: asked(wethSold),
      }),
    );
    const sellingWeth = await signTrade(
      chain,
      wethSeller,
      sellOrder({
        sellToken: weth,
        buyToken: dusd,
        sellAmount: String(wethSold),
        buyAmount: asked(dusdSold),
      }),
    );
    await settlesInEth(dusdSeller, buyingEth, [sellingWeth]);
  });

  it('pays an order alone its ETH from a pool’s WETH', async () => {
    const seller = await owner(dusd, 400n * E18);
    // 300 DUSD at the pools' ~3,000 DUSD per WETH is ~0.1 ETH: 0.09 leaves room for the fee.
    const buyingEth = await signTrade(
      chain,
      seller,
      sellOrder({
        sellToken: dusd,
        buyToken: NATIVE_TOKEN_MARKER,
        sellAmount: String(300n * E18),
        buyAmount: String((9n * E18) / 100n),
      }),
    );
    await settlesInEth(seller, buyingEth);
  });
});
