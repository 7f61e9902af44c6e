/**
 * A solver engine's answer read into the published API's types: checked against
 * schemas/solver/solve-response.schema.json, numbers made integers (decimal or 0x-hex strings,
 * JSON integers), addresses lowercased. As with the reference's deserialiser, unknown fields are
 * ignored and one malformed part refuses the whole answer, naming the field.
 */
import { MAX_UINT256 } from '../../domain/amounts.js';
import type { Address, Hex, OrderUid } from '../../domain/events.js';
import {
  describeSchemaError,
  validators,
  type RawCall,
  type RawInteraction,
  type RawSolution,
} from '../../../schemas/validators.js';
import type { Call, Interaction, Solution, SolverAnswer, Trade } from './types.js';

/** Why an answer could not be read: the JSON pointer of the first bad field, and what is wrong. */
export class MalformedAnswer extends Error {
  override name = 'MalformedAnswer';
}

export function readAnswer(body: unknown): SolverAnswer {
  const validate = validators.solveAnswer;
  if (!validate(body)) throw new MalformedAnswer(describeSchemaError(validate));
  if (body.solutions === undefined) {
    const error = body.error!;
    return { error: { code: error.code, message: error.message ?? '' } };
  }
  return {
    solutions: body.solutions.map((solution, i) => readSolution(solution, `/solutions/${i}`)),
  };
}

function uint(raw: string | number, at: string): bigint {
  const value = BigInt(raw);
  if (value > MAX_UINT256) throw new MalformedAnswer(`${at} exceeds uint256`);
  return value;
}

const lower = <T extends Hex>(hex: string): T => hex.toLowerCase() as T;

/** The features batchbook does not execute that `solution` uses. */
function unsupportedOf(solution: RawSolution): string[] {
  const found: string[] = [];
  if (solution.trades.some((trade) => trade.kind === 'jit')) found.push('JIT trades');
  if (solution.flashloans && Object.keys(solution.flashloans).length > 0) found.push('flashloans');
  if (solution.wrappers && solution.wrappers.length > 0) found.push('wrappers');
  return found;
}

function readSolution(solution: RawSolution, at: string): Solution {
  const id = Number(solution.id);
  const prices = new Map<Address, bigint>();
  for (const [token, price] of Object.entries(solution.prices)) {
    const address = lower<Address>(token);
    if (prices.has(address))
      throw new MalformedAnswer(`${at}/prices has ${address} more than once (in another case)`);
    prices.set(address, uint(price, `${at}/prices/${token}`));
  }
  const trades = solution.trades.map((trade, j): Trade => {
    if (trade.kind === 'jit') return { kind: 'jit' };
    const where = `${at}/trades/${j}`;
    return {
      kind: 'fulfillment',
      order: lower<OrderUid>(trade.order),
      executedAmount: uint(trade.executedAmount, `${where}/executedAmount`),
      fee: trade.fee === undefined || trade.fee === null ? null : uint(trade.fee, `${where}/fee`),
    };
  });
  const calls = (list: RawCall[] | undefined, field: string) =>
    (list ?? []).map((call, j) => readCall(call, `${at}/${field}/${j}`));
  return {
    id,
    prices,
    trades,
    preInteractions: calls(solution.preInteractions, 'preInteractions'),
    interactions: (solution.interactions ?? []).map((interaction, j) =>
      readInteraction(interaction, `${at}/interactions/${j}`),
    ),
    postInteractions: calls(solution.postInteractions, 'postInteractions'),
    gas: solution.gas === undefined ? null : uint(solution.gas, `${at}/gas`),
    unsupported: unsupportedOf(solution),
  };
}

function readCall(call: RawCall, at: string): Call {
  // The published document gives callData as an array of hex strings; the engines send one.
  const parts = typeof call.callData === 'string' ? [call.callData] : call.callData;
  return {
    target: lower<Address>(call.target),
    value: uint(call.value, `${at}/value`),
    callData: lower<Hex>(`0x${parts.map((part) => part.slice(2)).join('')}`),
  };
}

function readInteraction(interaction: RawInteraction, at: string): Interaction {
  if (interaction.kind === 'liquidity') {
    return {
      kind: 'liquidity',
      id: String(interaction.id),
      inputToken: lower<Address>(interaction.inputToken),
      outputToken: lower<Address>(interaction.outputToken),
      inputAmount: uint(interaction.inputAmount, `${at}/inputAmount`),
      outputAmount: uint(interaction.outputAmount, `${at}/outputAmount`),
    };
  }
  const assets = (list: { token: string; amount: string | number }[] | undefined, field: string) =>
    (list ?? []).map((asset, j) => ({
      token: lower<Address>(asset.token),
      amount: uint(asset.amount, `${at}/${field}/${j}/amount`),
    }));
  return {
    kind: 'custom',
    target: lower<Address>(interaction.target),
    value: uint(interaction.value, `${at}/value`),
    callData: lower<Hex>(interaction.callData),
    // The published document names the field `minAmount` in one place and `amount` in another.
    allowances: (interaction.allowances ?? []).map((allowance, j) => ({
      token: lower<Address>(allowance.token),
      spender: lower<Address>(allowance.spender),
      amount: uint((allowance.amount ?? allowance.minAmount)!, `${at}/allowances/${j}/amount`),
    })),
    inputs: assets(interaction.inputs, 'inputs'),
    outputs: assets(interaction.outputs, 'outputs'),
  };
}
