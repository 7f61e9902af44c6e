/**
 * The autopilot of one live network: every auction interval, while there are open orders, it
 * cuts an auction and records it as `AuctionClosed`, which `GET /api/v1/auction` then serves.
 * One instance per network runs it (a leader lock); the others wait.
 *
 * Solving is not wired in yet: auctions close with no solutions and no winners (see the README).
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { deterministicEventId } from '../domain/event-ids.js';
import { EVENT_VERSIONS, streams, type AuctionClosedV1 } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { Ledger } from '../ledger/port.js';
import { startLeaderLoop, type LeaderLoop } from '../chain/leader-loop.js';
import { cutAuction, type CutDeps } from './cut.js';

export interface AutopilotDeps {
  network: Network;
  cut: CutDeps;
  ledger: Ledger;
  nextAuctionId(): Promise<number>;
  clock: () => Date;
  connection: pg.ClientConfig;
  logger: Logger;
  intervalMs: number;
}

export function startAutopilot(deps: AutopilotDeps): LeaderLoop {
  const { network } = deps;
  const step = async () => {
    const now = deps.clock();
    const cut = await cutAuction(deps.cut, now);
    if (cut.orders.length === 0 && cut.filtered.length === 0) return;
    const id = await deps.nextAuctionId();
    const auction: AuctionClosedV1 = {
      network: network.name,
      id,
      ...cut,
      cutAt: now.toISOString(),
      solutions: [],
      winners: [],
    };
    await deps.ledger.append(
      streams.auction(network.name, id),
      [
        {
          id: deterministicEventId('AuctionClosed', network.name, id),
          type: 'AuctionClosed',
          version: EVENT_VERSIONS.AuctionClosed,
          data: auction,
        },
      ],
      'noStream',
    );
  };
  return startLeaderLoop({
    connection: deps.connection,
    key: ['batchbook.autopilot', network.name],
    pollIntervalMs: deps.intervalMs,
    logger: deps.logger.child({ network: network.name, component: 'autopilot' }),
    step,
  });
}
