/**
 * Which quote an order carries (reference §4.1 step 10, §7 step 9): the one named by `quoteId`
 * if it prices this order and has not expired, else the best unexpired stored quote that does,
 * else a fresh quote of the order's own amounts (sell orders as `sellAmountAfterFee`, buy orders
 * as `buyAmountAfterFee`). The fresh quote is carried by the order alone: the reference stores
 * it too, but then an order refused afterwards would leave it behind. Orders come here once a
 * signed fee is refused, so as limit orders: one the fresh quote finds no liquidity for is placed
 * without a quote (the reference tolerates that for limit orders); every other refusal of the
 * quote refuses the order.
 */
import type { ParsedAppData } from '../domain/app-data.js';
import type { Address, LinkedQuote, OrderData, SigningScheme } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import {
  quotableOrder,
  quoteMatches,
  scaledQuoteAmounts,
  type QuotableOrder,
  type QuoteSide,
  type StoredQuote,
} from '../domain/quote.js';
import type { QuoteQueries } from '../queries/quotes.js';
import { additionalGas, priceQuote, quoteGiven, type QuotePricingDeps } from './quote-pricing.js';
import type { QuoteStore } from './quote-store.js';
import { Rejection } from './rejection.js';

export interface QuoteLinkDeps extends QuotePricingDeps {
  quotes: QuoteQueries;
  store: QuoteStore;
}

/** The order being placed, as far as its quote is concerned. */
export interface QuotedPlacement {
  order: OrderData;
  owner: Address;
  signingScheme: SigningScheme;
  appData: { document: string; parsed: ParsedAppData };
  /** The `quoteId` the order names, if any. */
  quoteId: number | null;
}

/**
 * What the order gets for its native-token cost: higher is better for the trader. Measured on
 * the scaled amounts, so every candidate is judged for the same sell amount, as the reference
 * does on the amounts it quoted.
 */
function value(quote: LinkedQuote): number {
  const gasInSellToken =
    (Number(quote.gasAmount) * Number(quote.gasPrice)) / Number(quote.sellTokenPrice);
  return Number(quote.buyAmount) / (Number(quote.sellAmount) + gasInSellToken);
}

function linked(quote: StoredQuote, order: QuotableOrder): LinkedQuote {
  return {
    id: quote.id,
    gasAmount: quote.gasAmount,
    gasPrice: quote.gasPrice,
    sellTokenPrice: quote.sellTokenPrice,
    ...scaledQuoteAmounts(quote.quote, order),
    solver: quote.solver,
    verified: quote.verified,
    metadata: {},
  };
}

export async function linkQuote(
  deps: QuoteLinkDeps,
  network: Network,
  placement: QuotedPlacement,
  now: Date,
): Promise<LinkedQuote | null> {
  const { order, quoteId } = placement;
  const quotable = quotableOrder(order);
  if (quoteId !== null) {
    const named = await deps.quotes.byId(network.name, quoteId);
    if (named && quoteMatches(named, quotable, now)) return linked(named, quotable);
  }
  // An order naming no quote is often priced afresh: the block its quote would be read at is
  // asked for while the stored quotes are looked up, not after (one node round trip less).
  const block = quoteId === null ? deps.prices.blockNumber() : undefined;
  // Never unhandled: a stored quote found makes the read moot.
  block?.catch(() => undefined);
  const candidates = (await deps.quotes.unexpired(network.name, order, now))
    .filter((q) => quoteMatches(q, quotable, now))
    .map((q) => linked(q, quotable));
  candidates.sort((a, b) => Number(b.verified) - Number(a.verified) || value(b) - value(a));
  if (candidates[0]) return candidates[0];
  try {
    return linked(await freshQuote(deps, network, placement, now, block), quotable);
  } catch (error) {
    if (error instanceof Rejection && error.errorType === 'NoLiquidity') return null;
    throw error;
  }
}

/**
 * A quote of the order's own amounts, given to its owner now, under an id of its own, priced at
 * `block` when it was read already.
 */
async function freshQuote(
  deps: QuoteLinkDeps,
  network: Network,
  placement: QuotedPlacement,
  now: Date,
  block: Promise<number> | undefined,
): Promise<StoredQuote> {
  const { order, signingScheme, appData } = placement;
  const side: QuoteSide =
    order.kind === 'sell'
      ? { kind: 'sell', sellAmountAfterFee: BigInt(order.sellAmount) }
      : { kind: 'buy', buyAmountAfterFee: BigInt(order.buyAmount) };
  const { partiallyFillable: _, ...fields } = order;
  const priced = await priceQuote(
    deps,
    network,
    { ...fields, signingScheme },
    side,
    additionalGas(appData.parsed.hooks, signingScheme),
    block,
  );
  const quote = quoteGiven(network, placement.owner, priced, {
    fullAppData: appData.document,
    onchainOrder: false,
    now,
  });
  return { ...quote, id: await deps.store.nextId() };
}
