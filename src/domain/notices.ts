/**
 * Account notices (seed §2.6, §6): what the notices projector tells an order's owner, derived
 * from the ledger alone. Everything here is pure: ids, surplus, the ledger's
 * clock for expiry, and the human-readable messages.
 *
 * Amounts are atoms (bigint); messages show them in token units where src/domain/token-units.ts
 * knows the token, and in atoms with the token's address otherwise.
 */
import { deterministicEventId } from './event-ids.js';
import type { Address, OrderKind, OrderUid } from './events.js';
import { networkByName } from './networks.js';
import { formatTokenAmount, formatUnits, tokenName, tokenUnits } from './token-units.js';
import { executedAmount, fullAmount, type ExecutedSums } from './trade-execution.js';

export const NOTICE_TYPES = [
  'order_filled',
  'order_partially_filled',
  'price_improvement',
  'order_cancelled',
  'order_expired',
  'insufficient_balance',
] as const;

export type NoticeType = (typeof NOTICE_TYPES)[number];

/** A notice as GET /accounts/{account}/notifications shows it (seed §2.6). */
export interface Notice {
  id: string;
  account: Address;
  type: NoticeType;
  message: string;
  /** ISO 8601 UTC, from the event that triggered the notice. */
  timestamp: string;
  metadata: NoticeMetadata;
}

export interface NoticeMetadata {
  orderId: OrderUid;
  network: string;
  /** Fills: the order's total executed amount in its kind's unit (sell or buy atoms). */
  executedAmount?: string;
  /** Price improvement: atoms of `surplusToken` beyond the limit price. */
  surplus?: string;
  surplusToken?: Address;
  /** Expiry and insufficient balance: the auction that saw it. */
  auctionId?: number;
  [key: string]: unknown;
}

/** What a notice needs to know of its order. */
export interface NoticeOrder {
  network: string;
  uid: OrderUid;
  owner: Address;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  buyAmount: bigint;
  kind: OrderKind;
}

/** One trade: sell atoms transferred (fee included), buy atoms received, and the fee. */
export interface TradeAmounts {
  sellAmount: bigint;
  buyAmount: bigint;
  feeAmount: bigint;
}

/**
 * A notice id: the same for the same fact on every replay. `discriminator` is what makes the
 * notice unique among notices of its type and order: a trade's block hash and log index, the
 * auction id of an insufficient-balance episode, nothing for the once-per-order ones.
 */
export function noticeId(
  type: NoticeType,
  network: string,
  uid: OrderUid,
  ...discriminator: readonly (string | number)[]
): string {
  return deterministicEventId('notice', type, network, uid, ...discriminator);
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/**
 * What a trade got beyond the order's limit price, in the surplus token (the buy token of sell
 * orders, the sell token of buy orders); null when it got no more than the limit. Sell orders:
 * bought − ceil(sold × buyAmount / sellAmount); buy orders: floor(bought × sellAmount /
 * buyAmount) − paid; sold and paid are before fees (as the total surplus query counts them).
 */
export function priceImprovement(
  order: Pick<NoticeOrder, 'kind' | 'sellAmount' | 'buyAmount' | 'sellToken' | 'buyToken'>,
  trade: TradeAmounts,
): { surplus: bigint; token: Address } | null {
  const sold = trade.sellAmount - trade.feeAmount;
  if (order.sellAmount <= 0n || order.buyAmount <= 0n || sold < 0n || trade.buyAmount <= 0n) {
    return null;
  }
  if (order.kind === 'sell') {
    if (sold === 0n) return null;
    const surplus = trade.buyAmount - ceilDiv(sold * order.buyAmount, order.sellAmount);
    return surplus > 0n ? { surplus, token: order.buyToken } : null;
  }
  const surplus = (trade.buyAmount * order.sellAmount) / order.buyAmount - sold;
  return surplus > 0n ? { surplus, token: order.sellToken } : null;
}

/** Unix seconds of an event's ISO time, as the API's status reads the clock (whole seconds). */
export function unixSeconds(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 time: ${iso}`);
  return Math.floor(ms / 1000);
}

/**
 * Expired at an auction cut at `cutAt`: the order's `validTo` (Unix seconds) is behind the cut's
 * whole second, exactly when the API's status would say `expired` at that instant.
 */
export function isExpiredAt(validTo: number, cutAt: string): boolean {
  return validTo < unixSeconds(cutAt);
}

/**
 * Seconds after a winning solution's settlement deadline during which its trades may still
 * reach the ledger, so the notices hold its orders' expiry that long (unless the settlement is
 * recorded failed, or the order's fill arrives first). A settlement mined by its deadline is
 * recorded by the chain indexer once it has its confirmations (3 on public networks by default:
 * 36 s at Ethereum's 12 s blocks, less elsewhere) and the indexer has polled (1 s by default);
 * a timed-out transaction may also land a little after the deadline. Two minutes covers that
 * with room for a slow node. It is a constant, not the indexer's configuration: the notices
 * must come out the same on every replay, whatever the service's settings are then.
 */
export const SETTLEMENT_RECORDING_MARGIN_SECONDS = 120;

/** The canonical ISO 8601 form of an event's time (milliseconds, `Z`), as the API shows it. */
export function noticeTimestamp(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 time: ${iso}`);
  return new Date(ms).toISOString();
}

// ---- messages --------------------------------------------------------------------------

const amount = (o: NoticeOrder, token: Address, atoms: bigint) =>
  formatTokenAmount(o.network, token, atoms);

const networkLabel = (network: string) => networkByName(network)?.label ?? network;

/** The order's first bytes: enough to tell it apart in a sentence (metadata has the full UID). */
export function shortUid(uid: OrderUid): string {
  return `${uid.slice(0, 10)}…`;
}

/** "order 0x12345678… to sell 1 WETH for at least 2000 DUSD on Ethereum" */
export function describeOrder(o: NoticeOrder): string {
  const terms =
    o.kind === 'sell'
      ? `to sell ${amount(o, o.sellToken, o.sellAmount)} for at least ${amount(o, o.buyToken, o.buyAmount)}`
      : `to buy ${amount(o, o.buyToken, o.buyAmount)} for at most ${amount(o, o.sellToken, o.sellAmount)}`;
  return `order ${shortUid(o.uid)} ${terms} on ${networkLabel(o.network)}`;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "0.5 of 1 WETH" in the order's kind's token. */
function progress(o: NoticeOrder, executed: ExecutedSums): string {
  const token = o.kind === 'sell' ? o.sellToken : o.buyToken;
  const done = executedAmount(o.kind, executed);
  const full = fullAmount(o);
  const units = tokenUnits(o.network, token);
  return units
    ? `${formatUnits(done, units.decimals)} of ${formatUnits(full, units.decimals)} ${units.symbol}`
    : `${done} of ${full} atoms of ${token}`;
}

function traded(o: NoticeOrder, sold: bigint, bought: bigint): string {
  return `${amount(o, o.sellToken, sold)} sold for ${amount(o, o.buyToken, bought)}`;
}

export function filledMessage(o: NoticeOrder, executed: ExecutedSums): string {
  return `${capitalised(describeOrder(o))} was filled: ${traded(
    o,
    executed.sell - executed.fee,
    executed.buy,
  )} in total.`;
}

export function partiallyFilledMessage(
  o: NoticeOrder,
  trade: TradeAmounts,
  executed: ExecutedSums,
): string {
  return `${capitalised(describeOrder(o))} was partially filled: ${traded(
    o,
    trade.sellAmount - trade.feeAmount,
    trade.buyAmount,
  )}; ${progress(o, executed)} filled so far.`;
}

export function priceImprovementMessage(
  o: NoticeOrder,
  improvement: { surplus: bigint; token: Address },
): string {
  const extra = amount(o, improvement.token, improvement.surplus);
  const how =
    o.kind === 'sell'
      ? `it received ${extra} more than its limit price asked`
      : `it paid ${extra} less than its limit price allowed`;
  return `${capitalised(describeOrder(o))} got a better price: ${how}.`;
}

export function cancelledMessage(o: NoticeOrder, source: 'api' | 'chain'): string {
  const how = source === 'chain' ? 'on chain' : 'by a signed cancellation';
  return `${capitalised(describeOrder(o))} was cancelled ${how}.`;
}

export function expiredMessage(o: NoticeOrder, executed: ExecutedSums): string {
  const done = executedAmount(o.kind, executed);
  const outcome = done > 0n ? `with ${progress(o, executed)} filled` : 'without being filled';
  return `${capitalised(describeOrder(o))} expired ${outcome}.`;
}

export function insufficientBalanceMessage(o: NoticeOrder): string {
  return (
    `${capitalised(describeOrder(o))} was left out of an auction: the balance of ` +
    `${tokenName(o.network, o.sellToken)} in ${o.owner} is too low. It takes part again ` +
    `once the balance covers it.`
  );
}
