/**
 * Taking a solver engine's solution in: what the driver encodes of a sound one (its liquidity
 * through the pools sent, its custom calls with their allowances granted and withdrawn, the
 * unwrap of what native-ETH buyers receive, a limit order's fee), and what it refuses of a
 * hostile or broken one, with the feedback the published API has for it.
 */
import { expect } from 'chai';
import { Interface } from 'ethers';
import { takeIn, type IntakeContext } from '../../../src/auction/solution-intake.js';
import type { Solution, Trade } from '../../../src/auction/solver-api/types.js';
import { amountOut } from '../../../src/domain/amm.js';
import type { Address, Hex } from '../../../src/domain/events.js';
import {
  NATIVE_TOKEN_MARKER,
  SETTLEMENT_CONTRACT,
  VAULT_RELAYER,
} from '../../../src/domain/networks.js';
import { orderTermsOf } from '../../../src/domain/order-terms.js';
import { auctionOrder } from '../../support/auction-orders.js';
import { DUSD, E18, WETH, devnetPool, uid } from '../domain/solver/fixtures.js';

const SOLVER = { name: 'engine', address: '0x00000000000000000000000000000000000000ab' as Address };
const SPENDER: Address = '0x00000000000000000000000000000000000000cc';
const abi = new Interface([
  'function approve(address,uint256)',
  'function transfer(address,uint256)',
  'function swap(uint256,uint256,address,bytes)',
  'function withdraw(uint256)',
]);

const sellWeth = auctionOrder(1);
const buyEth = auctionOrder(2, {
  kind: 'buy',
  sellToken: DUSD,
  buyToken: NATIVE_TOKEN_MARKER,
  sellAmount: (3_100n * E18).toString(),
  buyAmount: E18.toString(),
});
const market = auctionOrder(3, { class: 'market' });

function context(balances: [Address, bigint][] = []): IntakeContext {
  return {
    orders: new Map(
      [sellWeth, buyEth, market].map((order) => [order.uid, { order, terms: orderTermsOf(order) }]),
    ),
    liquidity: new Map([['0', devnetPool]]),
    settlement: SETTLEMENT_CONTRACT,
    vaultRelayer: VAULT_RELAYER,
    wrappedNative: WETH,
    availableBalances: new Map(balances),
  };
}

/** What the devnet pool gives for 1 WETH, minus the fee's worth kept by the baseline's way. */
const OUT = amountOut(E18, devnetPool.reserve1, devnetPool.reserve0)!;
const FEE = 10n ** 15n;

/** 1 WETH swapped through the liquidity `id` for `outputAmount` DUSD. */
const poolSwap = (id: string, outputAmount: bigint): Solution['interactions'][number] => ({
  kind: 'liquidity',
  id,
  inputToken: WETH,
  outputToken: DUSD,
  inputAmount: E18,
  outputAmount,
});

/** The baseline engine's answer for `sellWeth`: 1 WETH through the pool, a fee kept in WETH. */
function swapSolution(fields: Partial<Solution> = {}): Solution {
  const executed = E18 - FEE;
  return {
    id: 0,
    prices: new Map([
      [WETH, (executed * OUT) / E18],
      [DUSD, executed],
    ]),
    trades: [{ kind: 'fulfillment', order: sellWeth.uid, executedAmount: executed, fee: FEE }],
    preInteractions: [],
    interactions: [poolSwap('0', OUT)],
    postInteractions: [],
    gas: 166_391n,
    unsupported: [],
    ...fields,
  };
}

const calls = (interactions: readonly { target: Address; callData: Hex }[]) =>
  interactions.map(({ target, callData }) => {
    const call = abi.parseTransaction({ data: callData })!;
    const args = call.args
      .toArray()
      .map((a: unknown) => (typeof a === 'string' ? a.toLowerCase() : a));
    return [target, call.name, ...args] as unknown[];
  });

const refusal = (solution: Solution, balances: [Address, bigint][] = []) => {
  const taken = takeIn(SOLVER, solution, context(balances));
  expect(taken, 'refused').to.have.property('refused');
  return taken as { refused: string; feedback: { kind: string } | null };
};

describe('taking a solver engine’s solution in', () => {
  it('encodes its liquidity through the pool sent, and keeps its fee on the trade', () => {
    const taken = takeIn(SOLVER, swapSolution(), context());
    expect(taken).to.have.property('proposed');
    const { proposed } = taken as Extract<typeof taken, { proposed: unknown }>;
    expect(proposed).to.deep.include({ solver: 'engine', solutionId: 0 });
    expect(proposed.trades).to.deep.equal([
      { uid: sellWeth.uid, executedAmount: E18 - FEE, fee: FEE },
    ]);
    expect(calls(proposed.calls.intra)).to.deep.equal([
      [WETH, 'transfer', devnetPool.address, E18],
      [devnetPool.address, 'swap', OUT, 0n, SETTLEMENT_CONTRACT, '0x'],
    ]);
    expect(proposed.calls.pre).to.deep.equal([]);
  });

  it('grants a custom interaction’s allowances before the interactions and withdraws them after', () => {
    const custom = {
      kind: 'custom' as const,
      target: SPENDER,
      value: 0n,
      callData: '0xc0ffee' as Hex,
      allowances: [
        { token: WETH, spender: SPENDER, amount: 3n },
        { token: WETH, spender: SPENDER, amount: 4n },
      ],
      inputs: [{ token: WETH, amount: E18 }],
      outputs: [{ token: DUSD, amount: OUT }],
    };
    const taken = takeIn(SOLVER, swapSolution({ interactions: [custom] }), context());
    const { proposed } = taken as Extract<typeof taken, { proposed: unknown }>;
    expect(proposed.calls.intra.map((c) => [c.target, c.callData.slice(0, 10)])).to.deep.equal([
      [WETH, '0x095ea7b3'],
      [SPENDER, '0xc0ffee'],
      [WETH, '0x095ea7b3'],
    ]);
    expect(calls([proposed.calls.intra[0]!, proposed.calls.intra[2]!])).to.deep.equal([
      [WETH, 'approve', SPENDER, 7n],
      [WETH, 'approve', SPENDER, 0n],
    ]);
  });

  it('pays an order buying native ETH by unwrapping what it receives, priced as the wrapped token', () => {
    // 3,100 DUSD for 1 ETH: the settlement holds the WETH (from its buffer, here).
    const trade: Trade = {
      kind: 'fulfillment',
      order: buyEth.uid,
      executedAmount: E18,
      fee: 0n,
    };
    const solution = swapSolution({
      prices: new Map([
        [WETH, 3_000n],
        [DUSD, 1n],
      ]),
      trades: [trade],
      interactions: [],
    });
    const taken = takeIn(SOLVER, solution, context([[WETH, E18]]));
    expect(
      taken,
      JSON.stringify(taken, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    ).to.have.property('proposed');
    const { proposed } = taken as Extract<typeof taken, { proposed: unknown }>;
    expect(proposed.clearingPrices.get(NATIVE_TOKEN_MARKER)).to.equal(3_000n);
    expect(calls(proposed.calls.intra)).to.deep.equal([[WETH, 'withdraw', E18]]);
  });

  describe('refuses what it must not execute, and tells the solver where the API has a word', () => {
    const cases: [string, () => ReturnType<typeof refusal>, RegExp, string | null][] = [
      [
        'nothing traded',
        () => refusal(swapSolution({ trades: [] })),
        /trades nothing/,
        'emptySolution',
      ],
      [
        'an order not in the auction',
        () =>
          refusal(
            swapSolution({
              trades: [{ kind: 'fulfillment', order: uid(99), executedAmount: 1n, fee: 0n }],
            }),
          ),
        /not in the auction/,
        null,
      ],
      [
        'an order filled twice',
        () => {
          const [trade] = swapSolution().trades;
          return refusal(swapSolution({ trades: [trade!, trade!] }));
        },
        /again/,
        null,
      ],
      [
        'an over-fill',
        () =>
          refusal(
            swapSolution({
              trades: [{ kind: 'fulfillment', order: sellWeth.uid, executedAmount: E18, fee: FEE }],
            }),
          ),
        /not one the contract executes/,
        'invalidExecutedAmount',
      ],
      [
        'a limit order without a fee',
        () =>
          refusal(
            swapSolution({
              trades: [
                { kind: 'fulfillment', order: sellWeth.uid, executedAmount: E18, fee: null },
              ],
            }),
          ),
        /limit order needs fee/,
        'invalidExecutedAmount',
      ],
      [
        'a fee on a market order',
        () =>
          refusal(
            swapSolution({
              trades: [{ kind: 'fulfillment', order: market.uid, executedAmount: E18, fee: 1n }],
            }),
          ),
        /market order takes no fee/,
        'invalidExecutedAmount',
      ],
      [
        'a price below the limit',
        () =>
          refusal(
            swapSolution({
              prices: new Map([
                [WETH, 2_800n],
                [DUSD, 1n],
              ]),
            }),
          ),
        /not one the contract executes/,
        'invalidClearingPrices',
      ],
      [
        'a traded token without a price',
        () => refusal(swapSolution({ prices: new Map([[WETH, 1n]]) })),
        /not one the contract executes/,
        'invalidClearingPrices',
      ],
      [
        'prices that do not clear: the settlement would pay out more than comes in',
        () =>
          refusal(
            swapSolution({
              prices: new Map([
                [WETH, 3_100n],
                [DUSD, 1n],
              ]),
            }),
          ),
        /would be \d+ atoms of 0x0+1 short/,
        'invalidClearingPrices',
      ],
      [
        'a liquidity id never sent',
        () =>
          refusal(
            swapSolution({
              interactions: [poolSwap('7', OUT)],
            }),
          ),
        /liquidity 7, never sent/,
        null,
      ],
      [
        'more out of a pool than it gives',
        () =>
          refusal(
            swapSolution({
              interactions: [poolSwap('0', OUT + 1n)],
            }),
          ),
        /gives at most/,
        null,
      ],
      [
        'an interaction calling the vault relayer',
        () =>
          refusal(
            swapSolution({
              interactions: [
                ...swapSolution().interactions,
                {
                  kind: 'custom',
                  target: VAULT_RELAYER,
                  value: 0n,
                  callData: '0x',
                  allowances: [],
                  inputs: [],
                  outputs: [],
                },
              ],
            }),
          ),
        /calls the vault relayer/,
        null,
      ],
      [
        'a pre-interaction calling the vault relayer',
        () =>
          refusal(
            swapSolution({
              preInteractions: [{ target: VAULT_RELAYER, value: 0n, callData: '0x' }],
            }),
          ),
        /calls the vault relayer/,
        null,
      ],
      [
        'a JIT trade',
        () => refusal(swapSolution({ unsupported: ['JIT trades'] })),
        /does not execute: JIT trades/,
        null,
      ],
    ];
    for (const [what, refuse, reason, feedback] of cases) {
      it(what, () => {
        const refused = refuse();
        expect(refused.refused).to.match(reason);
        expect(refused.feedback?.kind ?? null).to.equal(feedback);
      });
    }
  });
});
