/**
 * What GPv2Settlement does with one trade, to the atom (`computeTradeExecution`): the amounts it
 * moves at given prices, the limit and fill checks it makes, and the trader's surplus that
 * CIP-38 scores. Shared by every solver and by the referee, which must agree with the contract.
 */
import { MAX_UINT256 } from './amounts.js';
import type { Address, OrderKind, OrderUid } from './events.js';
import type { OrderTerms } from './order-terms.js';

/** A trade as a solution states it: which order, and how much of it. */
export interface ExecutedTrade {
  uid: OrderUid;
  /** Sell atoms for sell orders, buy atoms for buy orders; the full amount for fill-or-kill ones. */
  executedAmount: bigint;
}

export interface Executed {
  /** Atoms taken from the owner. */
  sell: bigint;
  /** Atoms paid to the receiver. */
  buy: bigint;
}

/** The sums over an order's trades: `sell` includes the fee the trades charged. */
export interface ExecutedSums extends Executed {
  fee: bigint;
}

/** SafeMath `mul`: null where the contract reverts on overflow. */
function mul(a: bigint, b: bigint): bigint | null {
  const product = a * b;
  return product > MAX_UINT256 ? null : product;
}

type SignedAmounts = Pick<OrderTerms, 'kind' | 'sellAmount' | 'buyAmount'>;

/** What the contract counts fills in: sell atoms for sell orders, buy atoms for buy orders. */
export function fullAmount(order: SignedAmounts): bigint {
  return order.kind === 'sell' ? order.sellAmount : order.buyAmount;
}

/** Executed so far in the unit of `fullAmount`: sell atoms before fees, or buy atoms. */
export function executedAmount(kind: OrderKind, executed: ExecutedSums): bigint {
  return kind === 'sell' ? executed.sell - executed.fee : executed.buy;
}

/**
 * Executed in full, as the contract counts fills (it never lets a fill exceed the full amount):
 * the one rule behind the `fulfilled` status and the filled notice.
 */
export function isFilled(order: SignedAmounts, executed: ExecutedSums): boolean {
  const done = executedAmount(order.kind, executed);
  return done !== 0n && done >= fullAmount(order);
}

/**
 * What is left to execute, in the unit of `fullAmount`. A fill-or-kill order with any earlier
 * fill has nothing left: the contract would count its full amount again and refuse it.
 */
export function remaining(order: OrderTerms): bigint {
  if (!order.partiallyFillable) return order.executed === 0n ? fullAmount(order) : 0n;
  const left = fullAmount(order) - order.executed;
  return left > 0n ? left : 0n;
}

/**
 * The contract's limit check, on the signed amounts (not the executed ones):
 * `sellAmount · price[sell] ≥ buyAmount · price[buy]`. False where it would overflow.
 */
export function respectsLimit(order: OrderTerms, sellPrice: bigint, buyPrice: bigint): boolean {
  const offered = mul(order.sellAmount, sellPrice);
  const asked = mul(order.buyAmount, buyPrice);
  return offered !== null && asked !== null && offered >= asked;
}

/** `a · b / c` rounded up, or null where the product overflows. */
function mulDivUp(a: bigint, b: bigint, c: bigint): bigint | null {
  const product = mul(a, b);
  return product === null ? null : (product + c - 1n) / c;
}

/** `a · b / c` rounded down, or null where the product overflows. */
function mulDivDown(a: bigint, b: bigint, c: bigint): bigint | null {
  const product = mul(a, b);
  return product === null ? null : product / c;
}

/**
 * Whether a trade filling `counted` of the order (in the unit the contract counts fills) is one
 * the contract takes: a fill-or-kill order whole, a partially fillable one something, at most
 * what is left.
 */
function fills(order: OrderTerms, counted: bigint): boolean {
  const left = remaining(order);
  if (left === 0n || counted <= 0n) return false;
  return order.partiallyFillable ? counted <= left : counted === left;
}

/**
 * The amounts `computeTradeExecution` moves for a trade: a sell order receives
 * `⌈sold · price[sell] / price[buy]⌉`, a buy order pays `⌊bought · price[buy] / price[sell]⌋`
 * (both rounded in the trader's favour). Fill-or-kill orders execute their full amount whatever
 * `executedAmount` says. Null where the contract reverts: a missing or zero price, the limit
 * price not respected, an overflow, or a fill beyond the order's amount.
 */
export function executedAmounts(
  order: OrderTerms,
  executedAmount: bigint,
  prices: ReadonlyMap<Address, bigint>,
): Executed | null {
  const sellPrice = prices.get(order.sellToken) ?? 0n;
  const buyPrice = prices.get(order.buyToken) ?? 0n;
  if (sellPrice <= 0n || buyPrice <= 0n || !respectsLimit(order, sellPrice, buyPrice)) return null;
  const executed = order.partiallyFillable ? executedAmount : fullAmount(order);
  if (executed < 0n || executed > remaining(order)) return null;
  if (order.kind === 'sell') {
    const buy = mulDivUp(executed, sellPrice, buyPrice);
    return buy === null ? null : { sell: executed, buy };
  }
  const sell = mulDivDown(executed, buyPrice, sellPrice);
  return sell === null ? null : { sell, buy: executed };
}

/** A trade as a solver states it in the published API: with the fee it takes, in sell atoms. */
export interface FeeTrade extends ExecutedTrade {
  /** Kept by the settlement contract, on top of what a sell order's `executedAmount` sells. */
  fee: bigint;
}

/** Why the contract would refuse a trade, named as the solver engine API's feedback names it. */
export type TradeProblem = 'invalidExecutedAmount' | 'invalidClearingPrices';

/**
 * The amounts a trade carrying a solver's fee moves, as the reference driver settles it: at the
 * uniform prices, a sell order pays `executed + fee` and receives `⌈executed · price[sell] /
 * price[buy]⌉`; a buy order receives `executed` and pays `⌊executed · price[buy] / price[sell]⌋ +
 * fee`. The trade then settles at prices of its own under which exactly these amounts move, so
 * the contract's limit check becomes `signedSell · buy ≥ signedBuy · sell`. What the contract
 * counts as filled (`executed + fee` of a sell order, `executed` of a buy order) must fill a
 * fill-or-kill order whole, and a partially fillable one at most what is left.
 */
export function tradeAmounts(
  order: OrderTerms,
  trade: FeeTrade,
  prices: ReadonlyMap<Address, bigint>,
): Executed | TradeProblem {
  const { executedAmount: executed, fee } = trade;
  const counted = order.kind === 'sell' ? executed + fee : executed;
  if (executed <= 0n || fee < 0n || !fills(order, counted)) return 'invalidExecutedAmount';
  const sellPrice = prices.get(order.sellToken) ?? 0n;
  const buyPrice = prices.get(order.buyToken) ?? 0n;
  if (sellPrice <= 0n || buyPrice <= 0n) return 'invalidClearingPrices';
  const amounts =
    order.kind === 'sell'
      ? { sell: counted, buy: mulDivUp(executed, sellPrice, buyPrice) }
      : { sell: mulDivDown(executed, buyPrice, sellPrice), buy: executed };
  if (amounts.buy === null || amounts.sell === null) return 'invalidClearingPrices';
  const sell = order.kind === 'sell' ? amounts.sell : amounts.sell + fee;
  const offered = mul(order.sellAmount, amounts.buy);
  const asked = mul(order.buyAmount, sell);
  if (sell > MAX_UINT256 || offered === null || asked === null || offered < asked)
    return 'invalidClearingPrices';
  return { sell, buy: amounts.buy };
}

/**
 * The trader's surplus over the limit price, in the surplus token (buy token of sell orders,
 * sell token of buy orders), rounded as the reference's scoring rounds it (reference §6,
 * winner-selection `surplus_over`): the limit amount scaled to the executed amount, up for
 * what a sell order must get, down for what a buy order may pay.
 */
export function surplus(order: OrderTerms, executed: Executed): bigint {
  if (order.kind === 'sell') {
    const limitBuy = (executed.sell * order.buyAmount + order.sellAmount - 1n) / order.sellAmount;
    return executed.buy - limitBuy;
  }
  return (executed.buy * order.sellAmount) / order.buyAmount - executed.sell;
}

/**
 * The surplus in native atoms, as CIP-38 scores it: a sell order's surplus is in its buy token;
 * a buy order's is first converted into its buy token at the order's own limit price. Null
 * without a native price for the buy token (the reference drops such a solution).
 */
export function nativeSurplus(
  order: OrderTerms,
  executed: Executed,
  nativePrices: ReadonlyMap<Address, bigint>,
): bigint | null {
  const price = nativePrices.get(order.buyToken);
  if (price === undefined) return null;
  const inSurplusToken = surplus(order, executed);
  const inBuyToken =
    order.kind === 'sell' ? inSurplusToken : (inSurplusToken * order.buyAmount) / order.sellAmount;
  return (inBuyToken * price) / 10n ** 18n;
}

/**
 * Why a solution's trades break a rule, or null when they do not: every trade is an auction
 * order, once, executing something within its remaining amount (fill-or-kill ones exactly
 * their full amount). Prices and limits are `executedAmounts`' question.
 */
export function checkTrades(
  trades: readonly ExecutedTrade[],
  orders: ReadonlyMap<OrderUid, OrderTerms>,
): string | null {
  if (trades.length === 0) return 'no trades';
  const seen = new Set<OrderUid>();
  for (const trade of trades) {
    const order = orders.get(trade.uid);
    if (order === undefined) return `order ${trade.uid} is not in the auction`;
    if (seen.has(trade.uid)) return `order ${trade.uid} traded twice`;
    seen.add(trade.uid);
    if (!fills(order, trade.executedAmount)) {
      return `order ${trade.uid} cannot execute ${trade.executedAmount}`;
    }
  }
  return null;
}
