/**
 * Which stored quote an order carries (reference §7 step 9): the one named by `quoteId` if it
 * prices this order and has not expired, else the best unexpired quote that does. None is
 * fine: a limit order may be placed without a quote.
 */
import type { LinkedQuote, OrderData } from '../domain/events.js';
import {
  quotableOrder,
  quoteMatches,
  scaledQuoteAmounts,
  type QuotableOrder,
  type StoredQuote,
} from '../domain/quote.js';
import type { QuoteQueries } from '../queries/quotes.js';

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
  quotes: QuoteQueries,
  network: string,
  order: OrderData,
  quoteId: number | null,
  now: Date,
): Promise<LinkedQuote | null> {
  const quotable = quotableOrder(order);
  if (quoteId !== null) {
    const named = await quotes.byId(network, quoteId);
    if (named && quoteMatches(named, quotable, now)) return linked(named, quotable);
  }
  const candidates = (await quotes.unexpired(network, order, now))
    .filter((q) => quoteMatches(q, quotable, now))
    .map((q) => linked(q, quotable));
  candidates.sort((a, b) => Number(b.verified) - Number(a.verified) || value(b) - value(a));
  return candidates[0] ?? null;
}
