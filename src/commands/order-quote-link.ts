/**
 * Which stored quote an order carries (reference §7 step 9): the one named by `quoteId` if it
 * prices this order and has not expired, else the best unexpired quote that does. None is
 * fine: a limit order may be placed without a quote.
 */
import type { LinkedQuote, OrderData, QuoteCreatedV1 } from '../domain/events.js';
import { quotableOrder, quoteMatches } from '../domain/quote.js';
import type { QuoteQueries } from '../queries/quotes.js';

/** What the order gets for its native-token cost: higher is better for the trader. */
function value(quote: QuoteCreatedV1): number {
  const q = quote.quote;
  const gasInSellToken =
    (Number(quote.gasAmount) * Number(quote.gasPrice)) / Number(quote.sellTokenPrice);
  return Number(q.buyAmount) / (Number(q.sellAmount) + gasInSellToken);
}

function linked(quote: QuoteCreatedV1): LinkedQuote {
  return {
    id: quote.id,
    gasAmount: quote.gasAmount,
    gasPrice: quote.gasPrice,
    sellTokenPrice: quote.sellTokenPrice,
    sellAmount: quote.quote.sellAmount,
    buyAmount: quote.quote.buyAmount,
    feeAmount: quote.quote.feeAmount,
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
    if (named && quoteMatches(named, quotable, now)) return linked(named);
  }
  const candidates = (await quotes.unexpired(network, order, now)).filter((q) =>
    quoteMatches(q, quotable, now),
  );
  candidates.sort((a, b) => Number(b.verified) - Number(a.verified) || value(b) - value(a));
  return candidates[0] ? linked(candidates[0]) : null;
}
