/**
 * Why an auction order cannot settle now, asked of the chain when a winning solution trading it
 * would revert: the vault relayer cannot pull what the solution sells of it (no allowance, no
 * balance, or the token refuses), or its EIP-1271 owner no longer accepts its signature.
 *
 * The cut checks balances only, as the reference's does; without this an owner who revoked the
 * relayer's allowance, or a wallet contract that changed its mind, would sink every solution
 * holding the order, auction after auction. Only certain refusals count: an order whose
 * pre-hooks may fund or approve it (a `permit`), or whose funds come from the Balancer vault, is
 * not probed for the transfer.
 */
import type { Logger } from 'pino';
import type { OrderChainChecks } from '../chain/order-checks.js';
import { splitOrderUid } from '../domain/eip712.js';
import type { AuctionOrder, FilterReason, OrderUid, SolutionOrder } from '../domain/events.js';
import { mapAtOnce } from './at-once.js';

export type OrderProblem =
  | 'InsufficientAllowance'
  | 'InsufficientBalance'
  | 'TransferSimulationFailed'
  | 'InvalidEip1271Signature';

export type OrderProbeChecks = Pick<OrderChainChecks, 'transferProblem' | 'eip1271SignatureValid'>;

/**
 * How an auction records an order left out for `problem`: the reasons its cut gives (a transfer
 * that fails counts as funds the owner does not have, as in the reference's balance filter).
 */
export const filterReasonOf = (problem: OrderProblem): FilterReason =>
  problem === 'InvalidEip1271Signature' ? 'InvalidSignature' : 'InsufficientBalance';

/** Orders probed at once (see `mapAtOnce`). */
const PROBES_AT_ONCE = 16;

/** What the settlement pulls from the owner for this trade: its sell amount, and a whole fee. */
const pulled = (order: AuctionOrder, trade: SolutionOrder) =>
  BigInt(trade.sellAmount) + (order.partiallyFillable ? 0n : BigInt(order.feeAmount));

async function problemOf(
  checks: OrderProbeChecks,
  order: AuctionOrder,
  trade: SolutionOrder,
): Promise<OrderProblem | null> {
  if (order.signingScheme === 'eip1271') {
    // The UID starts with the order's EIP-712 digest, which the owner contract is asked about.
    const { digest } = splitOrderUid(order.uid);
    const valid = await checks.eip1271SignatureValid(order.owner, digest, order.signature);
    // A contract owner may be funded by its signature's own logic: only the signature counts.
    return valid ? null : 'InvalidEip1271Signature';
  }
  if (order.sellTokenBalance !== 'erc20' || order.preInteractions.length > 0) return null;
  const problem = await checks.transferProblem({
    owner: order.owner,
    token: order.sellToken,
    sellAmount: pulled(order, trade),
    fullBalanceCheck: true,
  });
  return problem?.errorType ?? null;
}

/**
 * The orders among `trades` that cannot settle now, and why; `orders`: the auction's, in full.
 * A probe the node could not answer finds nothing: the order is not held against its owner.
 */
export async function orderProblems(
  checks: OrderProbeChecks,
  orders: ReadonlyMap<OrderUid, AuctionOrder>,
  trades: readonly SolutionOrder[],
  logger: Logger,
): Promise<Map<OrderUid, OrderProblem>> {
  const probed = [...new Map(trades.map((trade) => [trade.uid, trade])).values()];
  const found = await mapAtOnce(probed, PROBES_AT_ONCE, async (trade) => {
    const order = orders.get(trade.uid);
    if (order === undefined) return null;
    return problemOf(checks, order, trade).catch((err: unknown) => {
      logger.warn({ uid: trade.uid, err }, 'order probe failed: the order is kept');
      return null;
    });
  });
  return new Map(probed.flatMap((trade, i) => (found[i] ? [[trade.uid, found[i]] as const] : [])));
}
