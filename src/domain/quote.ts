/**
 * Quotes (reference §7): the fee of a quote, the amounts it answers with, how long it lives,
 * and which stored quote an order may be linked to. Pure: prices and gas come in as arguments.
 */
import type {
  Address,
  OrderData,
  OrderKind,
  QuoteCreatedV1,
  QuotedOrder,
  SigningScheme,
} from './events.js';

/**
 * A quote as the quote store keeps it: the shape the ledger's `QuoteCreated` events recorded
 * quotes in, before quotes left the ledger.
 */
export type StoredQuote = QuoteCreatedV1;

/** What the price estimate said for the requested side. */
export interface QuoteEstimate {
  /** kind sell: the buy amount for the whole sell amount; kind buy: the sell amount needed. */
  amount: bigint;
  gas: bigint;
}

/** The request's side: a sell amount before or after the fee, or a buy amount after it. */
export type QuoteSide =
  | { kind: 'sell'; sellAmountBeforeFee: bigint }
  | { kind: 'sell'; sellAmountAfterFee: bigint }
  | { kind: 'buy'; buyAmountAfterFee: bigint };

/** The amount the estimator is asked to price: the sell amount for sells, the buy amount for buys. */
export function pricedAmount(side: QuoteSide): bigint {
  if (side.kind === 'buy') return side.buyAmountAfterFee;
  return 'sellAmountBeforeFee' in side ? side.sellAmountBeforeFee : side.sellAmountAfterFee;
}

/**
 * ceil(gas × gasPrice ÷ sellTokenPrice) in sell-token atoms, where `sellTokenPrice` is native
 * atoms per sell-token atom. The reference computes it in f64; so does this, on the same
 * inputs, and rounds up.
 */
export function quoteFee(gas: bigint, gasPrice: bigint, sellTokenPrice: number): bigint {
  const fee = Math.ceil(Number(gas * gasPrice) / sellTokenPrice);
  return Number.isFinite(fee) ? BigInt(fee) : 0n;
}

/**
 * A float as the reference prints it (Rust's `Display` for f64): the shortest digits that read
 * back as the same number, in plain decimal, never in exponent notation ("0.000000003", not
 * JavaScript's "3e-9"). Only finite, non-negative prices come here.
 */
export function plainDecimal(value: number): string {
  const text = String(value);
  const exponent = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text;
  const digits = exponent[1]! + (exponent[2] ?? '');
  // Where the decimal point falls in `digits`: after the first digit, moved by the exponent.
  const point = 1 + Number(exponent[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

export type QuoteAmounts =
  | { ok: true; sellAmount: bigint; buyAmount: bigint }
  | { ok: false; errorType: 'SellAmountDoesNotCoverFee'; fee: bigint };

/** The response's amounts (reference §7 step 4). */
export function quoteAmounts(side: QuoteSide, estimate: QuoteEstimate, fee: bigint): QuoteAmounts {
  if (side.kind === 'buy') {
    return { ok: true, sellAmount: estimate.amount, buyAmount: side.buyAmountAfterFee };
  }
  if ('sellAmountAfterFee' in side) {
    return { ok: true, sellAmount: side.sellAmountAfterFee, buyAmount: estimate.amount };
  }
  const total = side.sellAmountBeforeFee;
  const afterFee = total - fee;
  if (afterFee <= 0n) return { ok: false, errorType: 'SellAmountDoesNotCoverFee', fee };
  return { ok: true, sellAmount: afterFee, buyAmount: (estimate.amount * afterFee) / total };
}

const STANDARD_VALIDITY_SECONDS = 60;
const ONCHAIN_VALIDITY_SECONDS = 600;

/** Quotes for orders signed on chain live longer: the transaction takes time to land. */
export function quoteLifetimeSeconds(scheme: SigningScheme, onchainOrder: boolean): number {
  const onchain = onchainOrder && (scheme === 'eip1271' || scheme === 'presign');
  return onchain ? ONCHAIN_VALIDITY_SECONDS : STANDARD_VALIDITY_SECONDS;
}

/** The order fields a stored quote is matched against (reference §7 step 9). */
export interface QuotableOrder {
  sellToken: string;
  buyToken: string;
  kind: OrderKind;
  sellAmount: bigint;
  buyAmount: bigint;
  feeAmount: bigint;
}

export function quotableOrder(order: OrderData): QuotableOrder {
  return {
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    kind: order.kind,
    sellAmount: BigInt(order.sellAmount),
    buyAmount: BigInt(order.buyAmount),
    feeAmount: BigInt(order.feeAmount),
  };
}

/**
 * Whether `quote` prices `order` and is still valid at `now`. A sell order matches on the sell
 * amount the price was computed for (reference: `sellAmount` or `sellAmount + feeAmount` equals
 * it). The event records the answered amounts: for `sellAmountBeforeFee = X` that is X − fee
 * with the fee beside it, so X is their sum, which is what the SDK signs; for
 * `sellAmountAfterFee = X` it is X itself. The event does not say which was asked, so both are
 * accepted: the second also keeps linking orders signed for X − fee, as batchbook advised before.
 */
export function quoteMatches(quote: StoredQuote, order: QuotableOrder, now: Date): boolean {
  const q = quote.quote;
  if (q.sellToken !== order.sellToken || q.buyToken !== order.buyToken) return false;
  if (q.kind !== order.kind || Date.parse(quote.expiration) <= now.getTime()) return false;
  if (order.kind === 'buy') return BigInt(q.buyAmount) === order.buyAmount;
  const quoted = [BigInt(q.sellAmount) + BigInt(q.feeAmount), BigInt(q.sellAmount)];
  return quoted.some((x) => x === order.sellAmount || x === order.sellAmount + order.feeAmount);
}

/**
 * The quote's amounts as an order linked to it carries them (reference §7 step 9): for a sell
 * order, scaled to the order's sell amount at the quote's price; a buy order's as quoted. The fee
 * stays the quoted one.
 */
export function scaledQuoteAmounts(
  quote: Pick<QuotedOrder, 'sellAmount' | 'buyAmount' | 'feeAmount'>,
  order: Pick<QuotableOrder, 'kind' | 'sellAmount'>,
): { sellAmount: string; buyAmount: string; feeAmount: string } {
  const { sellAmount, buyAmount, feeAmount } = quote;
  if (order.kind === 'buy') return { sellAmount, buyAmount, feeAmount };
  // Stored sell quotes never have a zero sell amount (a zero after the fee is refused).
  const scaledBuy = (BigInt(buyAmount) * order.sellAmount) / BigInt(sellAmount);
  return {
    sellAmount: order.sellAmount.toString(),
    buyAmount: scaledBuy.toString(),
    feeAmount,
  };
}

/**
 * Whether a limit order asks for more than the market (its quote) gives (reference §4.1 step
 * 10): such orders count against the per-owner cap.
 */
export function outsideMarket(
  order: QuotableOrder,
  quote: Pick<QuotedOrder, 'sellAmount' | 'buyAmount' | 'feeAmount'>,
): boolean {
  const qSell = BigInt(quote.sellAmount);
  const qBuy = BigInt(quote.buyAmount);
  const qFee = BigInt(quote.feeAmount);
  if (qSell === 0n) return true;
  if (order.kind === 'sell')
    return order.sellAmount * (qBuy - (qFee * qBuy) / qSell) < qSell * order.buyAmount;
  return order.sellAmount * qBuy < (qSell + qFee) * order.buyAmount;
}

/** A solver's price for a quoted trade: the amount it gives (sell) or takes (buy), and its gas. */
export interface SolverPrice {
  amount: bigint;
  gas: bigint;
  /** The solver's address: who the stored quote names. */
  solver: Address;
}
