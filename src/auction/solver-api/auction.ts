/**
 * The `Auction` a solver engine is sent: the auction's orders with what is left of each, the
 * facts of every token they and the pools trade, and the pools as `constantProduct` liquidity.
 * An order buying native ETH is sent as one buying the wrapped token (the driver unwraps, as the
 * reference driver does); a partially filled one as the signed amounts scaled to the part left,
 * rounded against the trader as the reference driver rounds them.
 */
import { POOL_HOP_GAS, UNISWAP_V2_FEE } from '../../domain/amm.js';
import type { Address, AuctionOrder } from '../../domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../../domain/networks.js';
import type { OfferedPool } from '../../chain/prices.js';
import type { TokenFacts } from '../../chain/token-facts.js';
import type { Auction, ConstantProductLiquidity, Order, TokenInfo } from './types.js';

export interface AuctionContent {
  /** Null for a quote. */
  id: number | null;
  deadline: Date;
  orders: readonly AuctionOrder[];
  /** Native price of each order token, wei per 10^18 atoms (the auction's prices). */
  referencePrices: Readonly<Record<Address, string>>;
  /** Every token of the orders (the wrapped one for native ETH) and of the pools. */
  tokens: ReadonlyMap<Address, TokenFacts>;
  trusted: ReadonlySet<Address>;
  /** Each pool with the id its `liquidity` interactions name. */
  liquidity: readonly { id: string; pool: OfferedPool }[];
  effectiveGasPrice: bigint;
  wrappedNative: Address;
}

export function auctionFor(content: AuctionContent): Auction {
  const asErc20 = (token: Address) =>
    token === NATIVE_TOKEN_MARKER ? content.wrappedNative : token;
  const tokens: Record<Address, TokenInfo> = {};
  for (const [token, facts] of content.tokens) {
    const price =
      content.referencePrices[token] ??
      (token === content.wrappedNative ? content.referencePrices[NATIVE_TOKEN_MARKER] : undefined);
    tokens[token] = {
      ...(facts.decimals === null ? {} : { decimals: facts.decimals }),
      ...(facts.symbol === null ? {} : { symbol: facts.symbol }),
      ...(price === undefined ? {} : { referencePrice: price }),
      availableBalance: facts.availableBalance.toString(),
      trusted: content.trusted.has(token),
    };
  }
  return {
    id: content.id === null ? null : String(content.id),
    tokens,
    orders: content.orders.map((order) => solverOrder(order, asErc20(order.buyToken))),
    liquidity: content.liquidity.map(({ id, pool }) => constantProduct(id, pool)),
    effectiveGasPrice: content.effectiveGasPrice.toString(),
    deadline: content.deadline.toISOString(),
    surplusCapturingJitOrderOwners: [],
  };
}

/** What is left of the order: its side's signed amount minus the fills, the other side in proportion. */
function available(order: AuctionOrder): { sell: bigint; buy: bigint } {
  const [sell, buy, executed] = [
    BigInt(order.sellAmount),
    BigInt(order.buyAmount),
    BigInt(order.executed),
  ];
  if (order.kind === 'sell') {
    const left = sell - executed;
    // The least it must still receive: rounded up.
    return { sell: left, buy: (buy * left + sell - 1n) / sell };
  }
  const left = buy - executed;
  // The most it may still pay: rounded down.
  return { sell: (sell * left) / buy, buy: left };
}

function solverOrder(order: AuctionOrder, buyToken: Address): Order {
  const left = available(order);
  return {
    uid: order.uid,
    sellToken: order.sellToken,
    buyToken,
    sellAmount: left.sell.toString(),
    fullSellAmount: order.sellAmount,
    buyAmount: left.buy.toString(),
    fullBuyAmount: order.buyAmount,
    feePolicies: [],
    validTo: order.validTo,
    kind: order.kind,
    ...(order.receiver === null ? {} : { receiver: order.receiver }),
    owner: order.owner,
    partiallyFillable: order.partiallyFillable,
    preInteractions: order.preInteractions.map(({ target, value, callData }) => ({
      target,
      value,
      callData,
    })),
    postInteractions: order.postInteractions.map(({ target, value, callData }) => ({
      target,
      value,
      callData,
    })),
    sellTokenSource: order.sellTokenBalance,
    buyTokenDestination: order.buyTokenBalance,
    class: order.class === 'market' ? 'market' : 'limit',
    appData: order.appData,
    signingScheme: order.signingScheme,
    signature: order.signature,
  };
}

function constantProduct(id: string, pool: OfferedPool): ConstantProductLiquidity {
  return {
    kind: 'constantProduct',
    id,
    address: pool.address,
    router: pool.router,
    gasEstimate: POOL_HOP_GAS.toString(),
    tokens: {
      [pool.token0]: { balance: pool.reserve0.toString() },
      [pool.token1]: { balance: pool.reserve1.toString() },
    },
    fee: UNISWAP_V2_FEE,
  };
}
