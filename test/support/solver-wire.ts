/**
 * Solutions written as a solver engine writes them on the wire (the published solver engine
 * API: amounts as decimal strings, tagged trades and interactions): what test engines answer.
 */
import type { Call, Solution, SolverAnswer } from '../../src/auction/solver-api/types.js';

export function answerJson(answer: SolverAnswer): unknown {
  if ('error' in answer) return answer;
  return { solutions: answer.solutions.map(solutionJson) };
}

export function solutionJson(solution: Solution): Record<string, unknown> {
  const call = ({ target, value, callData }: Call) => ({ target, value: String(value), callData });
  return {
    id: solution.id,
    prices: Object.fromEntries(
      [...solution.prices].map(([token, price]) => [token, String(price)]),
    ),
    trades: solution.trades.map((trade) =>
      trade.kind === 'jit'
        ? trade
        : {
            kind: 'fulfillment',
            order: trade.order,
            executedAmount: String(trade.executedAmount),
            ...(trade.fee === null ? {} : { fee: String(trade.fee) }),
          },
    ),
    preInteractions: solution.preInteractions.map(call),
    interactions: solution.interactions.map((interaction) =>
      interaction.kind === 'liquidity'
        ? {
            kind: 'liquidity',
            internalize: false,
            id: interaction.id,
            inputToken: interaction.inputToken,
            outputToken: interaction.outputToken,
            inputAmount: String(interaction.inputAmount),
            outputAmount: String(interaction.outputAmount),
          }
        : {
            kind: 'custom',
            internalize: false,
            target: interaction.target,
            value: String(interaction.value),
            callData: interaction.callData,
            allowances: interaction.allowances.map((a) => ({ ...a, amount: String(a.amount) })),
            inputs: interaction.inputs.map((a) => ({ ...a, amount: String(a.amount) })),
            outputs: interaction.outputs.map((a) => ({ ...a, amount: String(a.amount) })),
          },
    ),
    postInteractions: solution.postInteractions.map(call),
    ...(solution.gas === null ? {} : { gas: Number(solution.gas) }),
  };
}
