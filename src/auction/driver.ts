/**
 * The settlement driver of one network: sends a winning solution as one GPv2Settlement
 * `settle()` transaction from its account (an allow-listed solver) and records on the auction's
 * stream what became of it: `SettlementSubmitted` once the node took the transaction,
 * `SettlementFailed` when the simulation reverted, sending failed, the transaction reverted or
 * it had not landed by the auction's deadline. A settlement that lands needs no record here:
 * the chain indexer turns its logs into `TradeSettled` and `SettlementObserved`.
 *
 * Until one of those is known the solution's orders are in flight, and later auctions leave them
 * out; a failure sends them back into the next auction.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Wallet, isError, type TransactionReceipt } from 'ethers';
import type { Logger } from 'pino';
import { envelope } from '../domain/event-envelope.js';
import { deterministicEventId } from '../domain/event-ids.js';
import {
  streams,
  type Address,
  type AuctionClosedV5,
  type AuctionOrder,
  type Hex,
  type RankedSolution,
  type SettlementFailedV1,
  type SettlementFailureReason,
  type SettlementSubmittedV1,
} from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { Ledger } from '../ledger/port.js';
import type { ChainRpc } from '../chain/rpc.js';
import type { AuctionObserver, SettlementProgress } from './observer.js';
import { settlementCalldata, settlementPlan } from './settlement-plan.js';

export interface DriverDeps {
  network: Network;
  rpc: ChainRpc;
  /** The account that sends settlements; it must be allow-listed on the authenticator. */
  privateKey: Hex;
  ledger: Ledger;
  clock: () => Date;
  logger: Logger;
  /** How often to ask the node for a sent transaction's receipt. */
  receiptPollIntervalMs: number;
  /** Told what became of each winner it settles (for the solver's feedback). */
  onOutcome(auctionId: number, solution: RankedSolution, outcome: SettlementOutcome): void;
  /** Told of each settlement sent and how each ended, with the gas mined ones used. */
  observer: AuctionObserver;
}

/** What became of a winner: mined, mined and reverted, or not settled for another reason. */
export type SettlementOutcome =
  { kind: 'success' | 'revert'; txHash: Hex } | { kind: 'fail'; reason: SettlementFailureReason };

/** A settlement the node's simulation reverts, and the transaction simulated. */
export interface Revert {
  reason: string;
  tx: { from: Address; to: Address; input: Hex };
}

export interface SettlementDriver {
  readonly address: Address;
  /**
   * Settles a winner of `auction`, whose orders `orders` holds in full (as cut); resolves once
   * the outcome is recorded (or the driver stops). Never rejects.
   */
  settle(
    auction: AuctionClosedV5,
    orders: readonly AuctionOrder[],
    solution: RankedSolution,
  ): Promise<void>;
  /**
   * Why the settlement of `solution` (of auction `auctionId`) would revert if sent now (the
   * node's simulation), or null when it would not, or the node could not tell. Never rejects.
   */
  wouldRevert(
    auctionId: number,
    orders: readonly AuctionOrder[],
    solution: RankedSolution,
  ): Promise<Revert | null>;
  /** Stops waiting for receipts and resolves when every settlement under way has ended. */
  stop(): Promise<void>;
}

/**
 * The node's gas estimate runs at another block and timestamp than the transaction will: a
 * Uniswap pair's first trade in a block writes its price accumulators, which the estimate may
 * not see. The margin covers that; unused gas is not paid.
 */
const gasLimitFor = (estimate: bigint) => (estimate * 12n) / 10n + 50_000n;

class SettlementFailure extends Error {
  constructor(
    readonly reason: SettlementFailureReason,
    detail: string,
    readonly txHash: Hex | null = null,
  ) {
    super(detail);
  }
}

/** Kept in the ledger: a node's error may quote the whole calldata, megabytes of it. */
const DETAIL_LIMIT = 500;

const describe = (error: unknown) => {
  const detail = isError(error, 'CALL_EXCEPTION')
    ? `${error.shortMessage}${error.data && error.data !== '0x' ? ` (${error.data})` : ''}`
    : error instanceof Error
      ? error.message
      : String(error);
  return detail.length > DETAIL_LIMIT ? `${detail.slice(0, DETAIL_LIMIT)}…` : detail;
};

export function createSettlementDriver(deps: DriverDeps): SettlementDriver {
  const { network, rpc, ledger, clock } = deps;
  const wallet = new Wallet(deps.privateKey, rpc.provider);
  const address = wallet.address.toLowerCase() as Address;
  const logger = deps.logger.child({ network: network.name, component: 'driver' });
  const stopping = new AbortController();
  const underWay = new Set<Promise<void>>();
  // One transaction at a time takes a nonce: two winners of one auction must not share one.
  let sending: Promise<unknown> = Promise.resolve();

  /** Records what became of a winner, on its auction's stream. */
  const record = async (
    event:
      | { type: 'SettlementSubmitted'; data: SettlementSubmittedV1 }
      | { type: 'SettlementFailed'; data: SettlementFailedV1 },
  ) => {
    const { network: name, auctionId, rank } = event.data;
    await ledger.append(
      streams.auction(name, auctionId),
      [envelope(event, deterministicEventId(event.type, name, auctionId, rank))],
      'any',
    );
  };

  const calldata = (auctionId: number, orders: readonly AuctionOrder[], solution: RankedSolution) =>
    settlementCalldata(settlementPlan(orders, solution, network), auctionId);

  async function simulate(data: Hex): Promise<bigint> {
    try {
      return await rpc.request('settlement gas estimate', (p) =>
        p.estimateGas({ from: address, to: network.settlementContract, data }),
      );
    } catch (error) {
      const reason = isError(error, 'CALL_EXCEPTION') ? 'simulationFailed' : 'notSent';
      throw new SettlementFailure(reason, describe(error));
    }
  }

  async function send(data: Hex, gasLimit: bigint, deadline: Date) {
    const sent = sending.then(async () => {
      // Sends wait for each other: one may reach the front after its auction's deadline, when
      // its orders are back in auctions and another settlement may already be trading them.
      if (clock().getTime() >= deadline.getTime()) {
        throw new SettlementFailure(
          'notSent',
          `the deadline ${deadline.toISOString()} passed first`,
        );
      }
      const nonce = await rpc.request('nonce', (p) => p.getTransactionCount(address, 'pending'));
      const tx = await wallet.sendTransaction({
        to: network.settlementContract,
        data,
        gasLimit,
        nonce,
      });
      return { hash: tx.hash.toLowerCase() as Hex, nonce };
    });
    sending = sent.catch(() => {});
    try {
      return await sent;
    } catch (error) {
      throw error instanceof SettlementFailure
        ? error
        : new SettlementFailure('notSent', describe(error));
    }
  }

  /** The receipt, or null when the deadline passed (or the driver stopped) first. */
  async function receipt(hash: Hex, deadline: Date): Promise<TransactionReceipt | null> {
    while (!stopping.signal.aborted) {
      const found = await rpc.provider.getTransactionReceipt(hash).catch(() => null);
      if (found) return found;
      const left = deadline.getTime() - clock().getTime();
      if (left <= 0) return null;
      await sleep(Math.min(deps.receiptPollIntervalMs, left), undefined, {
        signal: stopping.signal,
      }).catch(() => {});
    }
    return null;
  }

  async function settle(
    auction: AuctionClosedV5,
    orders: readonly AuctionOrder[],
    solution: RankedSolution,
  ): Promise<void> {
    const { rank } = solution;
    const log = logger.child({ auction: auction.id, rank, solver: solution.solver });
    const winner = { network: network.name, auctionId: auction.id, rank };
    const progress = (stage: SettlementProgress, gasUsed?: bigint) =>
      deps.observer.settlement(network.name, solution.solver, stage, gasUsed);
    let sent: Hex | null = null;
    try {
      const data = calldata(auction.id, orders, solution);
      const gasLimit = gasLimitFor(await simulate(data));
      const { hash, nonce } = await send(data, gasLimit, new Date(auction.deadline));
      sent = hash;
      await record({
        type: 'SettlementSubmitted',
        data: {
          ...winner,
          from: address,
          txHash: hash,
          nonce,
          gasLimit: gasLimit.toString(),
          submittedAt: clock().toISOString(),
        },
      });
      log.info({ txHash: hash }, 'settlement sent');
      progress('submitted');
      const landed = await receipt(hash, new Date(auction.deadline));
      if (landed === null) {
        // A stop is no verdict: the deadline still bounds the orders' time in flight.
        if (stopping.signal.aborted) return;
        throw new SettlementFailure('timedOut', `not mined by ${auction.deadline}`, hash);
      }
      if (landed.status !== 1) {
        progress('reverted', landed.gasUsed);
        deps.onOutcome(auction.id, solution, { kind: 'revert', txHash: hash });
        throw new SettlementFailure('reverted', `reverted in block ${landed.blockNumber}`, hash);
      }
      log.info({ txHash: hash, block: landed.blockNumber }, 'settlement landed');
      progress('mined', landed.gasUsed);
      deps.onOutcome(auction.id, solution, { kind: 'success', txHash: hash });
    } catch (error) {
      if (!(error instanceof SettlementFailure) && sent !== null) {
        // The transaction is out there: only the chain and the deadline can tell its fate.
        log.error({ err: error, txHash: sent }, 'settlement sent but not followed');
        return;
      }
      if (!(error instanceof SettlementFailure)) {
        log.error({ err: error }, 'settlement could not be attempted');
      }
      const failure =
        error instanceof SettlementFailure
          ? error
          : new SettlementFailure('notSent', describe(error));
      log.warn({ reason: failure.reason, detail: failure.message }, 'settlement failed');
      if (failure.reason !== 'reverted') {
        progress(failure.reason);
        deps.onOutcome(auction.id, solution, { kind: 'fail', reason: failure.reason });
      }
      await record({
        type: 'SettlementFailed',
        data: {
          ...winner,
          txHash: failure.txHash,
          reason: failure.reason,
          detail: failure.message,
          failedAt: clock().toISOString(),
        },
      }).catch((err: unknown) => log.error({ err }, 'could not record a failed settlement'));
    }
  }

  return {
    address,
    async wouldRevert(auctionId, orders, solution) {
      let input: Hex;
      try {
        input = calldata(auctionId, orders, solution);
      } catch (error) {
        return {
          reason: describe(error),
          tx: { from: address, to: network.settlementContract, input: '0x' },
        };
      }
      const tx = { from: address, to: network.settlementContract, input };
      try {
        await simulate(input);
        return null;
      } catch (error) {
        if (!(error instanceof SettlementFailure)) return { reason: describe(error), tx };
        return error.reason === 'simulationFailed' ? { reason: error.message, tx } : null;
      }
    },
    settle(auction, orders, solution) {
      const run = settle(auction, orders, solution).finally(() => underWay.delete(run));
      underWay.add(run);
      return run;
    },
    async stop() {
      stopping.abort();
      await Promise.all(underWay);
    },
  };
}
