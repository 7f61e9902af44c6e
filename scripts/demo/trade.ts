/**
 * One complete trade on a running devnet, driven with the official SDK as a wallet app would:
 * two demo accounts quote, sign and submit opposite orders (WETH for DUSD and back); the next
 * auction matches them; the settlement lands on chain; the trades and the competition are read
 * back. Each step reports a line; any step that fails throws, naming it.
 *
 * `npm run demo` runs it against `npm start`; the end-to-end suite runs it against a test service.
 */
import {
  BuyTokenDestination,
  OrderBookApi,
  OrderKind,
  OrderQuoteSideKindSell,
  OrderSigningUtils,
  SellTokenSource,
  SigningScheme,
  setGlobalAdapter,
  type ApiBaseUrls,
  type EnrichedOrder,
  type SolverCompetitionResponse,
  type SupportedChainId,
  type Trade,
  type UnsignedOrder,
} from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { Contract, JsonRpcProvider, formatUnits, parseUnits } from 'ethers';
import { createPublicClient, http, keccak256, toBytes, type PublicClient } from 'viem';
import { foundry } from 'viem/chains';
import type { DevnetAccount } from '../../src/chain/devnet/accounts.js';
import { DEVNET_DEMO_TOKENS, networkByName } from '../../src/domain/networks.js';

export interface DemoOptions {
  /** The service, e.g. http://127.0.0.1:8080 (the devnet's order book is under /devnet). */
  serviceUrl: string;
  /** The devnet's JSON-RPC, e.g. http://127.0.0.1:8545 */
  rpcUrl: string;
  /** Two funded accounts that approved the vault relayer: the WETH seller and the DUSD seller. */
  traders: readonly [DevnetAccount, DevnetAccount];
  /** How long to wait for the match and the settlement. */
  timeoutMs: number;
  report(line: string): void;
}

/** As `GET /accounts/{account}/notifications` shows one. */
export interface DemoNotice {
  id: string;
  type: string;
  message: string;
  metadata: { orderId?: string };
}

export interface DemoResult {
  uids: [string, string];
  /** Each trader's notices about its order; null when the service's notifications are off. */
  notices: [DemoNotice[], DemoNotice[]] | null;
  txHash: string;
  auctionId: number;
  orders: [EnrichedOrder, EnrichedOrder];
  trades: [Trade[], Trade[]];
  competition: SolverCompetitionResponse;
}

const DEVNET = networkByName('devnet')!;
const CHAIN_ID = DEVNET.chainId as SupportedChainId;
const WETH = DEVNET.wrappedNativeToken;
const DUSD = DEVNET_DEMO_TOKENS.DUSD;
const SYMBOLS: Record<string, string> = { [WETH.toLowerCase()]: 'WETH', [DUSD]: 'DUSD' };
const SIGNING = { settlementContractOverride: { [CHAIN_ID]: DEVNET.settlementContract } };
/** 1 WETH against 3,000 DUSD: the devnet pool's own price. */
const WETH_SOLD = parseUnits('1', 18);
const DUSD_SOLD = parseUnits('3000', 18);
/**
 * Each side asks for the other's amount less 0.1%: more than the pools give after their 0.3% fee
 * (the quote shows it), so no auction can fill either order alone through the pools, and the
 * two fill each other when both are in (a coincidence of wants at 3,000 DUSD per WETH).
 */
const ASKED = [(DUSD_SOLD * 999n) / 1000n, (WETH_SOLD * 999n) / 1000n] as const;
const ERC20 = ['function balanceOf(address) view returns (uint256)'];

const units = (atoms: string | bigint, token: string) =>
  `${formatUnits(atoms, 18)} ${SYMBOLS[token.toLowerCase()] ?? token}`;

/** `check` until it returns a value, or fail naming `what` at the deadline. */
async function until<T>(
  what: string,
  deadline: number,
  check: () => Promise<T | null>,
): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function runDemoTrade(options: DemoOptions): Promise<DemoResult> {
  const { report } = options;
  const deadline = Date.now() + options.timeoutMs;
  const api = new OrderBookApi({
    chainId: CHAIN_ID,
    env: 'prod',
    baseUrls: { [CHAIN_ID]: `${options.serviceUrl}/devnet` } as ApiBaseUrls,
    backoffOpts: { numOfAttempts: 1 },
    limiterOpts: { tokensPerInterval: 100, interval: 'second' },
  });
  const client = createPublicClient({ chain: foundry, transport: http(options.rpcUrl) });
  const chain = new JsonRpcProvider(options.rpcUrl, DEVNET.chainId, { staticNetwork: true });
  const balance = (token: string, owner: string): Promise<bigint> =>
    new Contract(token, ERC20, chain).getFunction('balanceOf')(owner) as Promise<bigint>;

  try {
    const sides = [
      { trader: options.traders[0], sell: WETH, buy: DUSD, amount: WETH_SOLD },
      { trader: options.traders[1], sell: DUSD, buy: WETH, amount: DUSD_SOLD },
    ] as const;
    const before = await Promise.all(
      sides.map((s) =>
        Promise.all([balance(s.sell, s.trader.address), balance(s.buy, s.trader.address)]),
      ),
    );

    const uids: string[] = [];
    for (const [i, { trader, sell, buy, amount }] of sides.entries()) {
      const { quote, id: quoteId } = await api.getQuote({
        sellToken: sell,
        buyToken: buy,
        from: trader.address,
        receiver: trader.address,
        kind: OrderQuoteSideKindSell.SELL,
        sellAmountBeforeFee: amount.toString(),
      });
      report(`quote   ${units(amount, sell)} → ${units(quote.buyAmount, buy)} (quote ${quoteId})`);

      const fullAppData = JSON.stringify({
        appCode: 'batchbook-demo',
        metadata: {},
        version: '1.3.0',
      });
      const appDataHash = keccak256(toBytes(fullAppData));
      const order: UnsignedOrder = {
        sellToken: sell,
        buyToken: buy,
        receiver: trader.address,
        sellAmount: amount.toString(),
        buyAmount: ASKED[i]!.toString(),
        validTo: Math.floor(Date.now() / 1000) + 1800,
        appData: appDataHash,
        // New orders sign a zero fee; the solver's costs come out of the surplus.
        feeAmount: '0',
        kind: OrderKind.SELL,
        partiallyFillable: false,
        sellTokenBalance: SellTokenSource.ERC20,
        buyTokenBalance: BuyTokenDestination.ERC20,
      };
      const wallet = new ViemAdapter({
        provider: client as PublicClient,
        signer: trader.privateKey,
      });
      setGlobalAdapter(wallet);
      const { signature, signingScheme } = await OrderSigningUtils.signOrder(
        order,
        CHAIN_ID,
        wallet.signer,
        SIGNING,
      );
      const uid = await api.sendOrder({
        ...order,
        appData: fullAppData,
        appDataHash,
        signature,
        signingScheme: signingScheme as unknown as SigningScheme,
        from: trader.address,
        quoteId: quoteId ?? null,
      });
      uids.push(uid);
      report(
        `order   ${trader.address} sells ${units(amount, sell)} for ≥ ${units(order.buyAmount, buy)}, better than the pools: ${uid}`,
      );
    }

    const [first, second] = uids as [string, string];
    const status = await until('an auction to take the orders', deadline, async () => {
      const s = await api.getOrderCompetitionStatus(first);
      return ['executing', 'traded'].includes(s.type) ? s : null;
    });
    report(
      `auction the orders are ${status.type} (winner: ${status.value?.map((v) => v.solver).join(', ') ?? '–'})`,
    );

    // The orders and the trades are two read models, each caught up on its own.
    const [orders, trades] = await until(
      'both orders fulfilled with their trades',
      deadline,
      async () => {
        const found = await Promise.all([api.getOrder(first), api.getOrder(second)]);
        if (!found.every((o) => o.status === 'fulfilled')) return null;
        const traded = await Promise.all(uids.map((orderUid) => api.getTrades({ orderUid })));
        return traded.every((t) => t.length > 0)
          ? ([found, traded] as [[EnrichedOrder, EnrichedOrder], [Trade[], Trade[]]])
          : null;
      },
    );
    const txHash = trades[0][0]?.txHash;
    if (!txHash) throw new Error('a fulfilled order has no trade');
    const receipt = await chain.getTransactionReceipt(txHash);
    report(
      `settled transaction ${txHash} in block ${receipt?.blockNumber}, gas ${receipt?.gasUsed}`,
    );
    for (const [i, [trade]] of trades.entries()) {
      report(
        `trade   ${orders[i]!.owner} sold ${units(trade!.sellAmount, trade!.sellToken)}, got ${units(trade!.buyAmount, trade!.buyToken)}`,
      );
    }

    // Its transaction is listed once the indexer's Settlement log reaches the read model too.
    const competition = await until(
      'the competition to list the settlement',
      deadline,
      async () => {
        const found = await api.getSolverCompetition(txHash);
        return found.transactionHashes?.includes(txHash) ? found : null;
      },
    );
    const winner = competition.solutions?.find((s) => s.isWinner);
    report(
      `competition auction ${competition.auctionId}: ${competition.solutions?.length ?? 0} solution(s), winner ${winner?.solverAddress} scored ${winner?.score} (native atoms)`,
    );

    const after = await Promise.all(
      sides.map((s) =>
        Promise.all([balance(s.sell, s.trader.address), balance(s.buy, s.trader.address)]),
      ),
    );
    for (const [i, s] of sides.entries()) {
      const [sellBefore, buyBefore] = before[i]!;
      const [sellAfter, buyAfter] = after[i]!;
      report(
        `balance ${s.trader.address}: ${units(sellAfter - sellBefore, s.sell)}, +${units(buyAfter - buyBefore, s.buy)}`,
      );
    }
    for (const [i, uid] of uids.entries()) {
      const { totalSurplus } = await api.getTotalSurplus(sides[i]!.trader.address);
      report(
        `surplus ${sides[i]!.trader.address} has earned ${formatUnits(totalSurplus ?? '0', 18)} native tokens of surplus (${uid.slice(0, 10)}…)`,
      );
    }
    const notices = await noticesOf(options.serviceUrl, sides, uids, deadline, report);
    return {
      uids: [first, second],
      notices,
      txHash,
      auctionId: competition.auctionId!,
      orders,
      trades,
      competition,
    };
  } finally {
    chain.destroy();
  }
}

/**
 * Each trader's notices about its order, once the fill's notice is there; reported line by
 * line. Null when the service answers 503: its notifications are off (no NOTIFICATIONS_API_KEY).
 */
async function noticesOf(
  serviceUrl: string,
  sides: readonly { trader: DevnetAccount }[],
  uids: readonly string[],
  deadline: number,
  report: (line: string) => void,
): Promise<[DemoNotice[], DemoNotice[]] | null> {
  const found: DemoNotice[][] = [];
  for (const [i, { trader }] of sides.entries()) {
    const url = `${serviceUrl}/accounts/${trader.address}/notifications`;
    const mine = await until(`the notice of ${uids[i]}'s fill`, deadline, async () => {
      const response = await fetch(url, { headers: { 'cache-control': 'no-cache' } });
      if (response.status === 503) return 'off' as const;
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      const notices = ((await response.json()) as DemoNotice[]).filter(
        (n) => n.metadata.orderId === uids[i],
      );
      return notices.some((n) => n.type === 'order_filled') ? notices : null;
    });
    if (mine === 'off') {
      report('notices are off: start the service with NOTIFICATIONS_API_KEY set to see them');
      return null;
    }
    for (const notice of [...mine].reverse()) report(`notice  ${notice.type}: ${notice.message}`);
    found.push(mine);
  }
  return found as [DemoNotice[], DemoNotice[]];
}
