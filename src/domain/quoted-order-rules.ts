/**
 * The submission rules that come after the quote (reference §4.1 steps 11–12), in that order:
 * the gas the order's settlement would take, and a validity window its app data opens.
 *
 * The reference's gas sum also holds the EIP-1271 verification's own gas, which the chain check
 * here does not measure (it simulates `isValidSignature` but keeps no gas figure); an order
 * without a linked quote counts its hooks alone.
 */
import { hooksGas, type Hook } from './app-data.js';
import type { OrderRejection } from './errors.js';

/** Most gas one order's part of a settlement may take (the reference's default). */
export const MAX_ORDER_GAS = 8_000_000n;
/** Shortest window between the app data's `validFrom` and the order's `validTo` (seconds). */
export const MIN_VALID_WINDOW = 60;

export interface QuotedOrderRulesInput {
  /** The linked quote's gas estimate; 0 when the order has no quote. */
  quoteGas: bigint;
  /** The app data's hooks: their gas limits run inside the settlement too. */
  hooks: { pre: readonly Hook[]; post: readonly Hook[] };
  /** The app data's `metadata.validFrom` (Unix seconds), when it has one. */
  validFrom: number | undefined;
  validTo: number;
}

export function checkQuotedOrderRules(input: QuotedOrderRulesInput): OrderRejection | null {
  if (input.quoteGas + hooksGas(input.hooks) > MAX_ORDER_GAS) {
    return {
      errorType: 'TooMuchGas',
      description: `Executing order requires too many gas units (more than ${MAX_ORDER_GAS})`,
    };
  }
  if (input.validFrom !== undefined && input.validTo < input.validFrom + MIN_VALID_WINDOW) {
    return {
      errorType: 'InvalidValidFrom',
      description: `validTo must be at least ${MIN_VALID_WINDOW} s after the app data's validFrom`,
    };
  }
  return null;
}
