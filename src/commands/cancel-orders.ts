/**
 * DELETE /api/v1/orders and DELETE /api/v1/orders/{uid}: an owner's signed, off-chain
 * cancellation. The decision covers every listed order before anything is written; only a
 * signature by the owner of every listed order cancels anything (reference §4.3, seed §4).
 */
import { cancellationDigest, cancellationsDigest, domainSeparator } from '../domain/eip712.js';
import { deterministicEventId } from '../domain/event-ids.js';
import { streams, type OrderCancelledV1, type OrderUid } from '../domain/events.js';
import { decideCancellation } from '../domain/lifecycle.js';
import type { Network } from '../domain/networks.js';
import { recoverOrderSigner } from '../domain/signatures.js';
import type { Ledger } from '../ledger/port.js';
import { loadOrder } from './order-state.js';
import { reject } from './rejection.js';
import { envelope } from '../domain/event-envelope.js';
import { decideAgainOnConflict } from './decide-again.js';

export interface CancelOrdersDeps {
  ledger: Ledger;
  clock: () => Date;
}

export interface CancellationRequest {
  /** As signed (normalised to lowercase, duplicates kept): the bulk digest hashes the list. */
  uids: readonly OrderUid[];
  signature: `0x${string}`;
  signingScheme: 'eip712' | 'ethsign';
  /** `single` is the deprecated `DELETE /orders/{uid}`, signed as `OrderCancellation`. */
  form: 'bulk' | 'single';
}

export async function cancelOrders(
  deps: CancelOrdersDeps,
  network: Network,
  request: CancellationRequest,
): Promise<{ position: string }> {
  const separator = domainSeparator(network.chainId, network.settlementContract);
  const digest =
    request.form === 'single'
      ? cancellationDigest(request.uids[0]!, separator)
      : cancellationsDigest(request.uids, separator);
  const signer = recoverOrderSigner(request.signingScheme, digest, request.signature);
  // A UID listed twice is decided and cancelled once.
  const uids = [...new Set(request.uids)];

  return decideAgainOnConflict(() => decideAndRecord(deps, network, uids, signer));
}

async function decideAndRecord(
  deps: CancelOrdersDeps,
  network: Network,
  uids: readonly OrderUid[],
  signer: `0x${string}` | null,
): Promise<{ position: string }> {
  const now = deps.clock();
  const orders = await Promise.all(uids.map((uid) => loadOrder(deps.ledger, network.name, uid)));
  const decision = decideCancellation({
    orders: orders.map(({ uid, state }) => ({ uid, state })),
    signer,
    nowSeconds: Math.floor(now.getTime() / 1000),
  });
  if (!decision.ok) reject(decision.error.errorType, decision.error.description);

  let position = '';
  for (const { uid, revision } of orders) {
    const data: OrderCancelledV1 = {
      network: network.name,
      uid,
      source: 'api',
      reason: 'cancellation signed by the owner',
      cancelledAt: now.toISOString(),
      by: signer!,
    };
    const result = await deps.ledger.append(
      streams.order(network.name, uid),
      [
        envelope(
          { type: 'OrderCancelled', data },
          deterministicEventId('OrderCancelled', network.name, uid, 'api'),
        ),
      ],
      revision,
    );
    if (!position || deps.ledger.comparePositions(result.position, position) > 0) {
      position = result.position;
    }
  }
  return { position };
}
