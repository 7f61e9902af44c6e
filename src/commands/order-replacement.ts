/**
 * Replacing an order (reference §4.1 steps 3 and 13) for POST /api/v1/orders: the pre-check of
 * the old order, the checks of the new one, and the old order's cancellation. The placement
 * command appends the new order's `OrderPlaced` after it (see src/domain/replacement.ts for why
 * two appends are safe).
 */
import { streams, type Address, type OrderUid, type SigningScheme } from '../domain/events.js';
import { cancellationRefusal } from '../domain/lifecycle.js';
import {
  ACTIVELY_BID_ON_AUCTIONS,
  hasDigest,
  replacementCancellation,
  replacementRefusal,
  replacingOrder,
} from '../domain/replacement.js';
import type { OrderState } from '../domain/lifecycle.js';
import type { Ledger } from '../ledger/port.js';
import type { CompetitionQueries } from '../queries/competitions.js';
import { loadOrder, type LoadedOrder } from './order-state.js';
import { reject } from './rejection.js';
import { decideAgainOnConflict } from './decide-again.js';

export interface ReplacementDeps {
  ledger: Ledger;
  competitions: Pick<CompetitionQueries, 'proposedInRecentAuctions'>;
}

/** The old order as the pre-check found it. */
export interface ReplacedOrder extends LoadedOrder {
  state: OrderState;
  /**
   * The order whose replacement already cancelled it, when that order has this submission's
   * digest: a retry after the process stopped between the two appends. Else null.
   */
  cancelledFor: OrderUid | null;
}

/** The API stream's first cancellation, if a replacement made it: the replacing order. */
function cancelledByReplacement(order: LoadedOrder): OrderUid | null {
  const first = order.recorded.find((e) => e.type === 'OrderCancelled');
  return first ? replacingOrder(first.metadata) : null;
}

function refuseUncancellable(
  order: LoadedOrder,
  now: Date,
): asserts order is LoadedOrder & { state: OrderState } {
  const refusal = cancellationRefusal(order.state, Math.floor(now.getTime() / 1000));
  if (refusal) reject(refusal.errorType, refusal.description);
}

/** Step 3: the old order must be cancellable, unless this very submission cancelled it. */
export async function precheckReplacement(
  ledger: Ledger,
  network: string,
  uid: OrderUid,
  digest: `0x${string}`,
  now: Date,
): Promise<ReplacedOrder> {
  const order = await loadOrder(ledger, network, uid);
  const replacement = cancelledByReplacement(order);
  if (order.state && replacement && hasDigest(replacement, digest)) {
    return { ...order, state: order.state, cancelledFor: replacement };
  }
  refuseUncancellable(order, now);
  return { ...order, cancelledFor: null };
}

/** Step 13's checks, before anything is written. */
export async function checkReplacement(
  deps: ReplacementDeps,
  network: string,
  replaced: ReplacedOrder,
  replacement: { uid: OrderUid; owner: Address; signingScheme: SigningScheme },
): Promise<void> {
  // Same digest but another UID (another owner): the old order was replaced by someone else.
  if (replaced.cancelledFor !== null && replaced.cancelledFor !== replacement.uid) {
    reject('AlreadyCancelled', 'Order is already cancelled');
  }
  const refusal = replacementRefusal(replaced.state, replacement);
  if (refusal) reject(refusal.errorType, refusal.description);
  // A retry's old order was cancelled, so out of later auctions: it passed this check already.
  if (
    replaced.cancelledFor === null &&
    (await deps.competitions.proposedInRecentAuctions(
      network,
      replaced.uid,
      ACTIVELY_BID_ON_AUCTIONS,
    ))
  ) {
    reject('OldOrderActivelyBidOn', 'The old order is actively being bid on in recent auctions');
  }
}

/**
 * The first of the two appends: the old order's cancellation, guarded by the revision the
 * checks saw. When another write got there first the old order's new state answers, as the
 * reference's transaction would after the other one: another replacement or a cancellation
 * leaves it `AlreadyCancelled`. Answers the cancellation's position.
 */
export async function cancelReplaced(
  ledger: Ledger,
  network: string,
  replaced: ReplacedOrder,
  replacement: { uid: OrderUid; owner: Address },
  now: Date,
): Promise<string> {
  const event = replacementCancellation(
    network,
    replaced.uid,
    replacement.uid,
    replacement.owner,
    now,
  );
  return decideAgainOnConflict(async (attempt) => {
    let { revision } = replaced;
    if (attempt > 1) {
      const current = await loadOrder(ledger, network, replaced.uid);
      refuseUncancellable(current, now);
      revision = current.revision;
    }
    // The same id again (a retry, or the same submission twice at once) is a no-op success.
    const result = await ledger.append(streams.order(network, replaced.uid), [event], revision);
    return result.position;
  });
}
