/**
 * An order's API `status`, derived at read time exactly as the reference does
 * (reference §3, `calculate_status`): the first matching rule wins.
 */
import type { OrderKind } from './events.js';
import { isFilled } from './trade-execution.js';

export type OrderStatus = 'presignaturePending' | 'open' | 'fulfilled' | 'cancelled' | 'expired';

export interface StatusInputs {
  kind: OrderKind;
  sellAmount: bigint;
  buyAmount: bigint;
  validTo: number;
  executedSellAmount: bigint;
  executedBuyAmount: bigint;
  executedFeeAmount: bigint;
  /** Cancelled through the API or invalidated on chain. */
  invalidated: boolean;
  /** A presign order whose latest pre-signature is absent or revoked. */
  presignaturePending: boolean;
  /**
   * An order placed on chain with a placement error: it can never trade, so it never reads as
   * open (the reference leaves its status alone and only keeps it out of auctions).
   */
  unplaceable?: boolean;
}

/** `nowSeconds` is Unix time; an order expires once `validTo < now` (strictly). */
export function orderStatus(s: StatusInputs, nowSeconds: number): OrderStatus {
  const executed = {
    sell: s.executedSellAmount,
    buy: s.executedBuyAmount,
    fee: s.executedFeeAmount,
  };
  if (isFilled(s, executed)) return 'fulfilled';
  if (s.invalidated || s.unplaceable) return 'cancelled';
  if (s.validTo < nowSeconds) return 'expired';
  if (s.presignaturePending) return 'presignaturePending';
  return 'open';
}
