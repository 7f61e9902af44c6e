/**
 * Builds the API's `Order` (reference §1.2, openapi `Order`) from an orders read-model row.
 * Runs once per order served, so the row arrives with everything SQL can derive already
 * derived; only `status`, which depends on the clock, is decided here.
 */
import type {
  Address,
  BuyTokenBalance,
  Hex,
  PlacementError,
  Interaction,
  LinkedQuote,
  OrderClass,
  OrderData,
  OrderKind,
  OrderUid,
  SellTokenBalance,
  SigningScheme,
} from '../domain/events.js';
import { orderStatus, type OrderStatus } from '../domain/status.js';

/**
 * `StoredOrderQuote`: the quote an order was placed with, as the ledger links it, without its id.
 * `metadata` is null while the order can still trade, so solvers cannot copy its route
 * (reference §1.2).
 */
export type ApiOrderQuote = Omit<LinkedQuote, 'id' | 'metadata'> & {
  metadata: LinkedQuote['metadata'] | null;
};

/** The signed order's fields (`appData` is always the hash; the document is `fullAppData`). */
export interface ApiOrder extends OrderData {
  creationDate: string;
  class: OrderClass;
  owner: Address;
  uid: OrderUid;
  availableBalance: null;
  executedSellAmount: string;
  executedSellAmountBeforeFees: string;
  executedBuyAmount: string;
  executedFeeAmount: string;
  invalidated: boolean;
  status: OrderStatus;
  isLiquidityOrder: boolean;
  executedFee: string;
  executedFeeToken: Address;
  fullAppData: string | null;
  /**
   * Only for an order placed on chain (who placed it) or invalidated on chain (who called
   * `invalidateOrder` on the settlement contract).
   */
  onchainUser?: Address;
  /** Only for an eth-flow order: the trader's deadline and its refund. */
  ethflowData?: { userValidTo: number; refundTxHash: Hex | null; isRefunded: boolean };
  /** Only for an order placed on chain: who placed it, and why it cannot trade. */
  onchainOrderData?: { sender: Address; placementError: PlacementError | null };
  /** Only when the app data sets metadata.validFrom. */
  validFrom?: number;
  settlementContract: Address;
  /** Only on single-order reads (GET /orders/{uid}, by_uids) of an order placed with a quote. */
  quote?: ApiOrderQuote;
  signingScheme: SigningScheme;
  signature: Hex;
  interactions: { pre: Interaction[]; post: Interaction[] };
}

/** The row as `orderColumns` selects it: amounts as decimal text, derived flags as booleans. */
export interface OrderViewRow {
  uid: OrderUid;
  owner: Address;
  creation_date: string;
  class: OrderClass;
  signing_scheme: SigningScheme;
  signature: Hex;
  sell_token: Address;
  buy_token: Address;
  receiver: Address | null;
  sell_amount: string;
  buy_amount: string;
  valid_to: string;
  app_data: Hex;
  fee_amount: string;
  kind: OrderKind;
  partially_fillable: boolean;
  sell_token_balance: SellTokenBalance;
  buy_token_balance: BuyTokenBalance;
  full_app_data: string | null;
  valid_from: string | null;
  /** Selected only where the API shows the quote. */
  quote?: (ApiOrderQuote & { id: number }) | null;
  interactions: { pre: Interaction[]; post: Interaction[] };
  settlement_contract: Address;
  executed_sell_amount: string;
  executed_sell_amount_before_fees: string;
  executed_buy_amount: string;
  executed_fee_amount: string;
  invalidated: boolean;
  onchain_user: Address | null;
  presignature_pending: boolean;
  ethflow_user_valid_to: string | null;
  onchain_sender: Address | null;
  placement_error: PlacementError | null;
  ethflow_refund_tx: Hex | null;
}

/**
 * The SELECT list for `OrderViewRow` over `orders o`, its chain state `c` and its latest
 * pre-signature `p` (see `orderSources`).
 */
export function orderColumns(withQuote: boolean): string {
  return `o.uid, o.owner,
    to_char(o.creation_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS creation_date,
    o.class, o.signing_scheme, o.signature, o.sell_token, o.buy_token, o.receiver,
    o.sell_amount::text AS sell_amount, o.buy_amount::text AS buy_amount,
    o.valid_to::text AS valid_to, o.app_data, o.fee_amount::text AS fee_amount, o.kind,
    o.partially_fillable, o.sell_token_balance, o.buy_token_balance, o.full_app_data,
    o.valid_from::text AS valid_from,${withQuote ? ' o.quote,' : ''} o.interactions,
    o.settlement_contract,
    COALESCE(c.executed_sell_amount, 0)::text AS executed_sell_amount,
    COALESCE(c.executed_sell_amount - c.executed_fee_amount, 0)::text
      AS executed_sell_amount_before_fees,
    COALESCE(c.executed_buy_amount, 0)::text AS executed_buy_amount,
    COALESCE(c.executed_fee_amount, 0)::text AS executed_fee_amount,
    (o.cancellation_date IS NOT NULL OR COALESCE(c.onchain_invalidations, 0) > 0) AS invalidated,
    COALESCE(o.onchain_sender, c.onchain_user) AS onchain_user,
    (o.signing_scheme = 'presign' AND NOT COALESCE(p.signed, false)) AS presignature_pending,
    o.ethflow_user_valid_to::text AS ethflow_user_valid_to, o.onchain_sender, o.placement_error,
    c.ethflow_refund_tx`;
}

/**
 * `FROM` for `orderColumns`: the order, its chain state, and (presign only) its latest
 * pre-signature. The chain state is looked up by its key, order by order, whatever the
 * statistics say: as a plain join, while they lagged a burst of orders, PostgreSQL scanned the
 * network's whole chain state for every order (1.3 s for one auction's cut of 6,577 orders,
 * 18–177 ms for one owner's count in the soak; BENCHMARKS.md). `LIMIT 1` (the key is unique)
 * keeps the subquery from being flattened back into that join.
 */
export function orderSources(table: (name: string) => string): string {
  return `FROM ${table('orders')} o
    LEFT JOIN LATERAL (
      SELECT * FROM ${table('order_chain_state')} s
      WHERE s.network = o.network AND s.uid = o.uid LIMIT 1
    ) c ON true
    LEFT JOIN LATERAL (
      SELECT e.signed FROM ${table('presignature_events')} e
      WHERE o.signing_scheme = 'presign' AND e.network = o.network AND e.uid = o.uid
      ORDER BY e.block_number DESC, e.log_index DESC LIMIT 1
    ) p ON true`;
}

function quoteView(quote: ApiOrderQuote, status: OrderStatus): ApiOrderQuote {
  const tradable = status === 'open' || status === 'presignaturePending';
  return {
    gasAmount: quote.gasAmount,
    gasPrice: quote.gasPrice,
    sellTokenPrice: quote.sellTokenPrice,
    sellAmount: quote.sellAmount,
    buyAmount: quote.buyAmount,
    feeAmount: quote.feeAmount,
    solver: quote.solver,
    verified: quote.verified,
    metadata: tradable ? null : quote.metadata,
  };
}

export function toApiOrder(row: OrderViewRow, nowSeconds: number): ApiOrder {
  const validTo = Number(row.valid_to);
  const userValidTo = row.ethflow_user_valid_to === null ? null : Number(row.ethflow_user_valid_to);
  const status = orderStatus(
    {
      kind: row.kind,
      sellAmount: BigInt(row.sell_amount),
      buyAmount: BigInt(row.buy_amount),
      // An eth-flow order's own validTo never comes: its trader's deadline does.
      validTo: userValidTo ?? validTo,
      executedSellAmount: BigInt(row.executed_sell_amount),
      executedBuyAmount: BigInt(row.executed_buy_amount),
      executedFeeAmount: BigInt(row.executed_fee_amount),
      invalidated: row.invalidated,
      presignaturePending: row.presignature_pending,
      unplaceable: row.placement_error !== null,
    },
    nowSeconds,
  );
  const order: ApiOrder = {
    creationDate: row.creation_date,
    class: row.class,
    owner: row.owner,
    uid: row.uid,
    availableBalance: null,
    executedSellAmount: row.executed_sell_amount,
    executedSellAmountBeforeFees: row.executed_sell_amount_before_fees,
    executedBuyAmount: row.executed_buy_amount,
    executedFeeAmount: row.executed_fee_amount,
    invalidated: row.invalidated,
    status,
    isLiquidityOrder: row.class === 'liquidity',
    // TradeSettled carries one fee (the signed fee executed); it is also the total fee.
    executedFee: row.executed_fee_amount,
    executedFeeToken: row.sell_token,
    fullAppData: row.full_app_data,
    settlementContract: row.settlement_contract,
    sellToken: row.sell_token,
    buyToken: row.buy_token,
    receiver: row.receiver,
    sellAmount: row.sell_amount,
    buyAmount: row.buy_amount,
    validTo,
    appData: row.app_data,
    feeAmount: row.fee_amount,
    kind: row.kind,
    partiallyFillable: row.partially_fillable,
    sellTokenBalance: row.sell_token_balance,
    buyTokenBalance: row.buy_token_balance,
    signingScheme: row.signing_scheme,
    signature: row.signature,
    interactions: row.interactions,
  };
  if (row.onchain_user !== null) order.onchainUser = row.onchain_user;
  if (userValidTo !== null) {
    const refundTxHash = row.ethflow_refund_tx;
    order.ethflowData = { userValidTo, refundTxHash, isRefunded: refundTxHash !== null };
  }
  if (row.onchain_sender !== null) {
    order.onchainOrderData = { sender: row.onchain_sender, placementError: row.placement_error };
  }
  if (row.valid_from !== null) order.validFrom = Number(row.valid_from);
  if (row.quote) order.quote = quoteView(row.quote, status);
  return order;
}
