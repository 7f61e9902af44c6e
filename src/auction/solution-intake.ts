/**
 * A solver engine's solution taken in by the driver, as the reference driver takes one: checked
 * against the auction it answers, then made into the calls its settlement makes. The referee
 * (src/domain/referee) scores what comes out; what is refused here never reaches it, and the
 * solver is told why where the published API has a word for it.
 *
 * - Trades: `fulfillment`s of auction orders, each order once, a `fee` stated for every limit
 *   order and none for a market one, filling what the contract accepts at a limit the prices
 *   respect (src/domain/trade-execution.ts). Orders buying native ETH were sent as orders buying
 *   the wrapped token: the marker is priced as that token and the settlement unwraps what they
 *   receive (`native-payouts.ts`).
 * - `liquidity` interactions: swaps through the pools sent, encoded here, their amounts checked
 *   against each pool's own arithmetic (`swap-interactions.ts`). `custom` ones as given, their
 *   `allowances` granted by approvals before the interactions and withdrawn after them, so that
 *   no spender keeps an allowance on the settlement's tokens. Every interaction is executed:
 *   batchbook draws on no buffers, so `internalize` changes nothing.
 * - Nothing may call the vault relayer (the contract refuses it); the tokens the settlement
 *   would hold afterwards, by what the solution itself states, may not fall below zero.
 * - JIT trades, flashloans and wrappers are not executed: a solution using one is left out.
 */
import { Interface } from 'ethers';
import type { Pool } from '../domain/amm.js';
import { MAX_UINT256 } from '../domain/amounts.js';
import type { Address, AuctionOrder, Hex, Interaction, OrderUid } from '../domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../domain/networks.js';
import type { OrderTerms } from '../domain/order-terms.js';
import type { ProposedSolution } from '../domain/referee/proposed-solution.js';
import { tradeAmounts, type FeeTrade } from '../domain/trade-execution.js';
import { unwrap } from './native-payouts.js';
import type { Call, NotificationKind, Solution } from './solver-api/types.js';
import { poolSwaps } from './swap-interactions.js';

export interface IntakeContext {
  /** The auction's orders, in full and in the contract's terms. */
  orders: ReadonlyMap<OrderUid, { order: AuctionOrder; terms: OrderTerms }>;
  /** The pools sent, by liquidity id. */
  liquidity: ReadonlyMap<string, Pool>;
  settlement: Address;
  vaultRelayer: Address;
  wrappedNative: Address;
  /** What the settlement contract holds of each token: what a solution may end short by. */
  availableBalances: ReadonlyMap<Address, bigint>;
}

export type Intake =
  { proposed: ProposedSolution } | { refused: string; feedback: NotificationKind | null };

const ERC20_APPROVE = new Interface(['function approve(address spender, uint256 amount)']);

class Refusal extends Error {
  constructor(
    message: string,
    readonly feedback: NotificationKind | null = null,
  ) {
    super(message);
  }
}

export function takeIn(
  solver: { name: string; address: Address },
  solution: Solution,
  context: IntakeContext,
): Intake {
  try {
    return { proposed: proposal(solver, solution, context) };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { refused: error.message, feedback: error.feedback };
  }
}

function proposal(
  solver: { name: string; address: Address },
  solution: Solution,
  context: IntakeContext,
): ProposedSolution {
  if (solution.unsupported.length > 0)
    throw new Refusal(`uses what batchbook does not execute: ${solution.unsupported.join(', ')}`);
  if (solution.trades.length === 0) throw new Refusal('trades nothing', { kind: 'emptySolution' });

  const balances = new Map<Address, bigint>(context.availableBalances);
  const move = (token: Address, amount: bigint) =>
    balances.set(token, (balances.get(token) ?? 0n) + amount);
  const clearingPrices = new Map(solution.prices);
  const trades = takeTrades(solution, context, clearingPrices, move);

  const swaps = poolSwaps(context.settlement);
  const approvals = new Map<string, { token: Address; spender: Address; amount: bigint }>();
  const intra = solution.interactions.flatMap((interaction, i): Interaction[] => {
    if (interaction.kind === 'liquidity') {
      const pool = context.liquidity.get(interaction.id);
      if (pool === undefined)
        throw new Refusal(`interaction ${i} swaps through liquidity ${interaction.id}, never sent`);
      move(interaction.inputToken, -interaction.inputAmount);
      move(interaction.outputToken, interaction.outputAmount);
      try {
        return swaps.swap(pool, {
          tokenIn: interaction.inputToken,
          tokenOut: interaction.outputToken,
          amountIn: interaction.inputAmount,
          amountOut: interaction.outputAmount,
        });
      } catch (error) {
        throw new Refusal(`interaction ${i}: ${(error as Error).message}`);
      }
    }
    notTheRelayer(interaction.target, `interaction ${i}`, context);
    for (const { token, spender, amount } of interaction.allowances) {
      const key = `${token}/${spender}`;
      const sum = (approvals.get(key)?.amount ?? 0n) + amount;
      approvals.set(key, { token, spender, amount: sum > MAX_UINT256 ? MAX_UINT256 : sum });
    }
    for (const input of interaction.inputs) move(input.token, -input.amount);
    for (const output of interaction.outputs) move(output.token, output.amount);
    return [call(interaction)];
  });

  const paidInEth = trades.reduce((sum, trade) => sum + trade.paidInEth, 0n);
  if (paidInEth > 0n) {
    const wrappedPrice = clearingPrices.get(context.wrappedNative);
    clearingPrices.set(NATIVE_TOKEN_MARKER, wrappedPrice!);
  }
  for (const [token, balance] of balances) {
    if (balance < 0n)
      throw new Refusal(`the settlement would be ${-balance} atoms of ${token} short`, {
        kind: 'invalidClearingPrices',
      });
  }
  const approve = (amount: (granted: bigint) => bigint) =>
    [...approvals.values()].map(({ token, spender, amount: granted }) => ({
      target: token,
      value: '0',
      callData: ERC20_APPROVE.encodeFunctionData('approve', [spender, amount(granted)]) as Hex,
    }));
  const calls = (list: readonly Call[], field: string) =>
    list.map((c, i) => {
      notTheRelayer(c.target, `${field} ${i}`, context);
      return call(c);
    });
  return {
    solver: solver.name,
    solverAddress: solver.address,
    solutionId: solution.id,
    clearingPrices,
    trades: trades.map(({ trade }) => trade),
    calls: {
      pre: calls(solution.preInteractions, 'pre-interaction'),
      intra: [
        ...approve((granted) => granted),
        ...intra,
        ...(paidInEth > 0n ? [unwrap(context.wrappedNative, paidInEth)] : []),
        ...approve(() => 0n),
      ],
      post: calls(solution.postInteractions, 'post-interaction'),
    },
  };
}

/**
 * The solution's trades, checked one by one, their token flows counted with `move`; an order
 * buying native ETH is priced and paid as the wrapped token (the marker's price is set after).
 */
function takeTrades(
  solution: Solution,
  context: IntakeContext,
  prices: Map<Address, bigint>,
  move: (token: Address, amount: bigint) => void,
): { trade: FeeTrade; paidInEth: bigint }[] {
  const seen = new Set<OrderUid>();
  return solution.trades.map((trade, i) => {
    // Unsupported trades (JIT) were refused before.
    if (trade.kind !== 'fulfillment') throw new Refusal(`trade ${i} is not a fulfillment`);
    const known = context.orders.get(trade.order);
    if (known === undefined)
      throw new Refusal(`trade ${i} fills ${trade.order}, not in the auction`);
    if (seen.has(trade.order)) throw new Refusal(`trade ${i} fills ${trade.order} again`);
    seen.add(trade.order);
    const { order, terms } = known;
    const limit = order.class !== 'market';
    if (limit !== (trade.fee !== null))
      throw new Refusal(
        `trade ${i}: a ${limit ? 'limit' : 'market'} order ${limit ? 'needs' : 'takes no'} fee`,
        { kind: 'invalidExecutedAmount' },
      );
    const buysEth = terms.buyToken === NATIVE_TOKEN_MARKER;
    const pricedAs = buysEth ? { ...terms, buyToken: context.wrappedNative } : terms;
    const feeTrade = {
      uid: trade.order,
      executedAmount: trade.executedAmount,
      fee: trade.fee ?? 0n,
    };
    const amounts = tradeAmounts(pricedAs, feeTrade, prices);
    if (typeof amounts === 'string')
      throw new Refusal(`trade ${i} of ${trade.order} is not one the contract executes`, {
        kind: amounts,
      });
    move(terms.sellToken, amounts.sell);
    move(pricedAs.buyToken, -amounts.buy);
    return { trade: feeTrade, paidInEth: buysEth ? amounts.buy : 0n };
  });
}

function notTheRelayer(target: Address, what: string, context: IntakeContext): void {
  if (target === context.vaultRelayer)
    throw new Refusal(`${what} calls the vault relayer, which the settlement contract forbids`);
}

function call({ target, value, callData }: { target: Address; value: bigint; callData: Hex }) {
  return { target, value: value.toString(), callData };
}
