/**
 * Quotes from solvers, as the reference driver asks them (`crates/driver/src/domain/quote.rs`):
 * each solver marked for quoting is sent an auction of one synthetic order (`id: null`, no owner,
 * a limit that takes any price, the `market` class so that no fee is stated) with the pools
 * between its tokens, by a deadline of its own. An answer is taken in as any solution is
 * (`solution-intake.ts`) and must state its gas; the best one prices the quote: the most bought
 * for a sell, the least sold for a buy. No answer: no quote from solvers (the caller falls back
 * to the pools).
 */
import type { Logger } from 'pino';
import type { PriceQuery } from '../chain/prices.js';
import type { Address, AuctionOrder, OrderUid } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import { orderTermsOf } from '../domain/order-terms.js';
import type { SolverPrice } from '../domain/quote.js';
import { tradeAmounts } from '../domain/trade-execution.js';
import { askSolvers } from './collect.js';
import { readMarket, roundSetup, type MarketSources } from './round.js';
import { takeIn } from './solution-intake.js';
import type { Solver } from './solver.js';

export interface SolverQuotesDeps {
  network: Network;
  /** The solvers marked for quoting. */
  solvers: readonly Solver[];
  market: MarketSources;
  timeoutMs: number;
  clock: () => Date;
  logger: Logger;
}

/** The quote order's id: 56 zero bytes, as the reference driver's `Uid::default()`. */
const QUOTE_UID = `0x${'00'.repeat(56)}` as OrderUid;
const NOBODY = `0x${'00'.repeat(20)}` as Address;
/** A buy quote's most to sell: 2^144, what the reference driver sends. */
const ANY_SELL_AMOUNT = 1n << 144n;
const LAST_VALID_TO = 2 ** 32 - 1;

/**
 * The best solver's quote for `query`, the market read at `block` (the caller's current one), or
 * null when no solver priced it.
 */
export type SolverQuotes = (query: PriceQuery, block: number) => Promise<SolverPrice | null>;

export function createSolverQuotes(deps: SolverQuotesDeps): SolverQuotes {
  const logger = deps.logger.child({ network: deps.network.name, component: 'solver-quotes' });
  return async (query, block) => {
    if (deps.solvers.length === 0) return null;
    const order = quoteOrder(query);
    const cut = { orders: [order], solverOrders: [orderTermsOf(order)], prices: {} };
    const market = await readMarket(deps.market, deps.network, cut, block);
    const deadline = new Date(deps.clock().getTime() + deps.timeoutMs);
    const setup = roundSetup(deps.network, null, cut, market, new Set(), deadline);
    const outcomes = await askSolvers(deps.solvers, setup.auction, deps.timeoutMs);
    let best: SolverPrice | null = null;
    for (const [i, outcome] of outcomes.entries()) {
      const solver = deps.solvers[i]!;
      if (!('answer' in outcome) || 'error' in outcome.answer) continue;
      // The reference driver takes an engine's first solution, and needs its gas.
      const [first] = outcome.answer.solutions.flatMap((solution) => {
        const taken = takeIn(solver, solution, setup.intake);
        if ('proposed' in taken) return [{ proposed: taken.proposed, gas: solution.gas }];
        logger.debug({ solver: solver.name, reason: taken.refused }, 'quote solution refused');
        return [];
      });
      if (first === undefined || first.gas === null) continue;
      const { proposed, gas } = first;
      const amounts = tradeAmounts(
        cut.solverOrders[0]!,
        proposed.trades[0]!,
        proposed.clearingPrices,
      );
      if (typeof amounts === 'string') continue;
      const amount = query.kind === 'sell' ? amounts.buy : amounts.sell;
      const better =
        best === null || (query.kind === 'sell' ? amount > best.amount : amount < best.amount);
      if (better) best = { amount, gas, solver: solver.address };
    }
    return best;
  };
}

/** The one order of a quote's auction: `query`'s trade, at any price, owned by nobody. */
function quoteOrder(query: PriceQuery): AuctionOrder {
  const [sellAmount, buyAmount] =
    query.kind === 'sell' ? [query.amount, 1n] : [ANY_SELL_AMOUNT, query.amount];
  return {
    uid: QUOTE_UID,
    owner: NOBODY,
    sellToken: query.sellToken,
    buyToken: query.buyToken,
    receiver: null,
    sellAmount: sellAmount.toString(),
    buyAmount: buyAmount.toString(),
    validTo: LAST_VALID_TO,
    appData: `0x${'00'.repeat(32)}`,
    feeAmount: '0',
    kind: query.kind,
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    created: 0,
    executed: '0',
    preInteractions: [],
    postInteractions: [],
    class: 'market',
    signingScheme: 'eip1271',
    signature: '0x',
    protocolFees: [],
  };
}
