/**
 * Order replacement (reference §4.1 steps 3 and 13): an order whose app data names
 * `metadata.replacedOrder.uid` cancels that order and takes its place.
 *
 * The reference does both in one database transaction; the ledger appends to one stream at a
 * time, so the old order's `OrderCancelled` is appended first and the new `OrderPlaced` second.
 * The cancellation's id is derived from both UIDs and its metadata names the new order: if
 * the process stops between the two appends, the same submission recognises the cancellation
 * as its own and finishes the job.
 */
import { deterministicEventId } from './event-ids.js';
import {
  type Address,
  type OrderCancelledV1,
  type OrderUid,
  type SigningScheme,
} from './events.js';
import type { OrderRejection } from './errors.js';
import type { OrderState } from './lifecycle.js';
import { envelope } from './event-envelope.js';

/** The event metadata key naming the order that replaced the cancelled one. */
export const REPLACED_BY = 'replacedBy';

/** The reference checks the last 5 competitions for the old order (§4.1 step 13). */
export const ACTIVELY_BID_ON_AUCTIONS = 5;

/** The old order's cancellation as the replacement appends it to the old order's stream. */
export interface ReplacementCancellation {
  id: string;
  type: 'OrderCancelled';
  version: number;
  data: OrderCancelledV1;
  metadata: { [REPLACED_BY]: OrderUid };
}

export function replacementCancellation(
  network: string,
  replaced: OrderUid,
  replacement: OrderUid,
  owner: Address,
  at: Date,
): ReplacementCancellation {
  // An off-chain cancellation signed by the owner (the new order's signature), as before.
  const data: OrderCancelledV1 = {
    network,
    uid: replaced,
    source: 'api',
    reason: `replaced by order ${replacement}`,
    cancelledAt: at.toISOString(),
    by: owner,
  };
  return {
    ...envelope(
      { type: 'OrderCancelled', data },
      deterministicEventId('OrderCancelled', network, replaced, REPLACED_BY, replacement),
    ),
    metadata: { [REPLACED_BY]: replacement },
  };
}

/** The order that replaced this one, from the metadata of its cancellation; else null. */
export function replacingOrder(metadata: Readonly<Record<string, unknown>>): OrderUid | null {
  const uid = metadata[REPLACED_BY];
  return typeof uid === 'string' ? (uid as OrderUid) : null;
}

/**
 * Whether `replacement` (a UID) is an order with this digest: at step 3 the new order's owner,
 * hence its UID, is not known yet, but its digest is (UID = digest ‖ owner ‖ validTo).
 */
export function hasDigest(replacement: OrderUid, digest: `0x${string}`): boolean {
  return replacement.slice(0, 66) === digest;
}

/**
 * The checks of step 13 on the new order (the last, the competitions, needs a read model): it
 * must be ECDSA-signed, by the old order's owner.
 */
export function replacementRefusal(
  replaced: OrderState,
  replacement: { owner: Address; signingScheme: SigningScheme },
): OrderRejection | null {
  const { signingScheme, owner } = replacement;
  if (signingScheme !== 'eip712' && signingScheme !== 'ethsign') {
    return { errorType: 'InvalidSignature', description: 'Malformed signature' };
  }
  if (owner !== replaced.placed.owner) {
    return { errorType: 'WrongOwner', description: 'Old and new orders have different signers' };
  }
  return null;
}
