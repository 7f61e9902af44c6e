/**
 * The chain indexer of one network: follows the settlement contract's logs, and its eth-flow
 * contracts' (orders selling native ETH, placed on chain), into ledger facts.
 *
 * - Confirmed blocks only: it indexes up to `head - confirmations`.
 * - Exactly once in effect: a fact's event id is derived from its log (chain id, block hash, log
 *   index, and how often that log was reverted before), so re-reading a range after a crash
 *   appends nothing new; the cursor moves only after the facts are in the ledger.
 * - Reorgs: before each step it checks that the cursor's block is still canonical. If not, it
 *   finds the newest block with recorded facts that still is, appends a `ChainFactReverted` for
 *   every fact above it (newest first), and indexes again from there. The read models follow.
 * - One instance per network across processes (an advisory lock); the others wait.
 */
import { toQuantity, type Block } from 'ethers';
import type pg from 'pg';
import type { Logger } from 'pino';
import { deterministicEventId } from '../domain/event-ids.js';
import { envelope } from '../domain/event-envelope.js';
import { streamOf, type ChainFact, type ChainFactRevertedV2, type Hex } from '../domain/events.js';
import type { Ledger } from '../ledger/port.js';
import { createIndexerStore, type BlockRef, type IndexedFact } from './indexer-store.js';
import { ChainMoved, startLeaderLoop } from './leader-loop.js';
import type { RequestLeadership } from '../ledger/leadership.js';
import type { InTransaction } from './ports.js';
import type { ChainRpc } from './rpc.js';
import {
  ethFlowFactOf,
  ETH_FLOW_TOPICS,
  readHeldOrder,
  type ReadHeldOrder,
} from './eth-flow-logs.js';
import { factOf, SETTLEMENT_TOPICS, type RawLog } from './settlement-logs.js';

export interface IndexerOptions {
  confirmations: number;
  pollIntervalMs: number;
  /** Most blocks per `eth_getLogs` request (public RPCs cap the range). */
  maxBlockRange: number;
  /** Where a network without a cursor starts; null: at the current confirmed block. */
  startBlock: number | null;
}

export interface ChainIndexer {
  /**
   * Blocks up to `head`'s confirmed one that are not indexed yet (0: caught up), from the
   * cursor whichever instance leads; null while there is no cursor (before the first pass).
   */
  behind(head: number): Promise<number | null>;
  stop(): Promise<void>;
}

interface IndexerDeps {
  rpc: ChainRpc;
  ledger: Ledger;
  pool: pg.Pool;
  inTransaction: InTransaction;
  requestLeadership: RequestLeadership;
  logger: Logger;
}

const lower = (hex: string) => hex.toLowerCase() as Hex;

type IndexerEvent = ChainFact | { type: 'ChainFactReverted'; data: ChainFactRevertedV2 };

/** Concurrent appends per step: enough for the ledger to commit them in groups. */
const APPEND_CONCURRENCY = 32;

/**
 * How far below a reorg the indexer reads again when none of its recorded facts is left on the
 * canonical chain and it has no start block to go back to (it began at the head): the fork lies
 * somewhere below the lowest block it knew, a few blocks deep on public chains, far less than
 * this.
 */
export const REORG_RESCAN_BLOCKS = 256;

/** Its store's tables must exist (the store migrations: the service's start-up pass). */
export async function startChainIndexer(
  deps: IndexerDeps,
  options: IndexerOptions,
): Promise<ChainIndexer> {
  const { rpc, ledger, logger } = deps;
  const network = rpc.network;
  const store = createIndexerStore(deps.pool, deps.inTransaction, network.name);
  const log = logger.child({ network: network.name, component: 'indexer' });

  const block = async (number: number): Promise<Block | null> =>
    rpc.request(`block ${number}`, (p) => p.getBlock(number));
  const ref = (b: Block): BlockRef => ({ number: b.number, hash: lower(b.hash!) });
  const isCanonical = async (at: BlockRef) => {
    const found = await block(at.number);
    // A node without the block yet (lagging, or another node behind a load balancer) tells
    // nothing about a reorg: the step is tried again later.
    if (!found) throw new ChainMoved();
    return lower(found.hash!) === at.hash;
  };

  const readHeld: ReadHeldOrder = (contract, hash, blockNumber) =>
    rpc.request(`eth-flow order ${hash}`, (p) =>
      readHeldOrder((tx) => p.call(tx), contract, hash, blockNumber),
    );

  /**
   * Appends in order within each stream and concurrently across streams (the ledger commits
   * concurrent appends together): a stream's facts keep their chain order, and a revert always
   * follows the fact it takes back.
   */
  const appendAll = async (items: readonly { event: IndexerEvent; id: string }[]) => {
    const byStream = new Map<string, { event: IndexerEvent; id: string }[]>();
    for (const item of items) {
      const stream = streamOf(item.event);
      byStream.set(stream, [...(byStream.get(stream) ?? []), item]);
    }
    const queue = [...byStream];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [stream, events] = next;
        for (const { event, id } of events)
          await ledger.append(stream, [envelope(event, id)], 'any');
      }
    };
    await Promise.all(Array.from({ length: APPEND_CONCURRENCY }, worker));
  };

  /**
   * Takes back every fact above the newest recorded block still on the canonical chain, and
   * answers where indexing resumes: that block; with none, the start block (null), or when
   * there is none either, a block well below everything the indexer had recorded.
   */
  const rollBack = async (left: BlockRef): Promise<BlockRef | null> => {
    let ancestor: BlockRef | null = null;
    for (const candidate of await store.factBlocks()) {
      if (await isCanonical(candidate)) {
        ancestor = candidate;
        break;
      }
    }
    const reverted = await store.factsAbove(ancestor?.number ?? -1);
    const resume = ancestor ?? (options.startBlock === null ? await below(left, reverted) : null);
    await appendAll(
      reverted.map(({ fact, eventId, incarnation }) => {
        const { blockHash, logIndex } = fact.data.chain;
        const data: ChainFactRevertedV2 = {
          network: network.name,
          revertedEventId: eventId,
          reverted: fact,
          reason: 'reorg',
        };
        const id = deterministicEventId(
          'chain-revert',
          network.chainId,
          blockHash,
          logIndex,
          incarnation,
        );
        return { event: { type: 'ChainFactReverted' as const, data }, id };
      }),
    );
    await store.rollBack(reverted, resume);
    log.warn(
      {
        ancestor: ancestor?.number ?? null,
        resume: resume?.number ?? null,
        reverted: reverted.length,
      },
      'reorg: facts reverted',
    );
    return resume;
  };

  /** The canonical block `REORG_RESCAN_BLOCKS` below the lowest one the indexer knew. */
  const below = async (left: BlockRef, reverted: readonly IndexedFact[]): Promise<BlockRef> => {
    const lowest = Math.min(left.number, ...reverted.map((r) => r.fact.data.chain.blockNumber));
    const found = await block(Math.max(lowest - REORG_RESCAN_BLOCKS, 0));
    if (!found) throw new ChainMoved();
    return ref(found);
  };

  /**
   * Indexes blocks `from`..`to` on top of `cursor`. `to` was read first; after the logs it must
   * still be canonical and `from` must still extend the cursor, or the chain moved during the
   * step (a reorg) and nothing is recorded.
   */
  const indexRange = async (cursor: BlockRef | null, from: number, to: Block) => {
    const filter = {
      address: [network.settlementContract, ...network.ethFlowContracts],
      topics: [[...SETTLEMENT_TOPICS, ...ETH_FLOW_TOPICS]],
      fromBlock: toQuantity(from),
      toBlock: toQuantity(to.number),
    };
    const logs: RawLog[] = await rpc.request(`logs ${from}..${to.number}`, (p) =>
      p.send('eth_getLogs', [filter]),
    );
    const blocks = new Map<number, Block>([[to.number, to]]);
    for (const l of logs) {
      const number = Number(l.blockNumber);
      let b = blocks.get(number);
      if (!b) {
        const fetched = await block(number);
        if (!fetched) throw new ChainMoved();
        blocks.set(number, (b = fetched));
      }
      if (lower(b.hash!) !== lower(l.blockHash)) throw new ChainMoved();
    }
    // Read before the checks below: a placement is checked against the contract's state at
    // its block, which a reorg during the step could have changed too.
    const facts = (
      await Promise.all(
        logs.map((l) => {
          const timestamp = blocks.get(Number(l.blockNumber))!.timestamp;
          return factOf(network, l, timestamp) ?? ethFlowFactOf(network, l, timestamp, readHeld);
        }),
      )
    ).filter((fact) => fact !== null);
    if (!(await isCanonical(ref(to)))) throw new ChainMoved();
    if (cursor && lower((await block(from))?.parentHash ?? '0x') !== cursor.hash) {
      throw new ChainMoved();
    }

    const incarnations = await store.incarnations(facts.map((f) => f.data.chain));
    const indexed: IndexedFact[] = facts.map((fact, i) => {
      const { blockHash, logIndex } = fact.data.chain;
      const incarnation = incarnations[i]!;
      const eventId = deterministicEventId(
        'chain',
        network.chainId,
        blockHash,
        logIndex,
        incarnation,
      );
      return { fact, eventId, incarnation };
    });
    await appendAll(indexed.map(({ fact, eventId }) => ({ event: fact, id: eventId })));
    await store.advance(indexed, ref(to));
  };

  /** One pass: undo a reorg if the cursor left the canonical chain, then catch up to the head. */
  const step = async (isStopping: () => boolean): Promise<void> => {
    const head = await rpc.request('block number', (p) => p.getBlockNumber());
    const target = head - options.confirmations;
    let cursor = await store.cursor();
    if (cursor && !(await isCanonical(cursor))) cursor = await rollBack(cursor);
    if (!cursor && options.startBlock === null) {
      // No history wanted: start at the confirmed head.
      const start = await block(Math.max(target, 0));
      if (start) await store.advance([], ref(start));
      return;
    }
    let from = cursor ? cursor.number + 1 : options.startBlock!;
    while (from <= target && !isStopping()) {
      const to = await block(Math.min(from + options.maxBlockRange - 1, target));
      if (!to) throw new ChainMoved();
      await indexRange(cursor, from, to);
      cursor = ref(to);
      from = to.number + 1;
    }
  };

  const loop = startLeaderLoop({
    requestLeadership: deps.requestLeadership,
    key: ['batchbook.chain.indexer', network.name],
    pollIntervalMs: options.pollIntervalMs,
    logger: log,
    step,
  });
  return {
    async behind(head) {
      const cursor = await store.cursor();
      return cursor && Math.max(0, head - options.confirmations - cursor.number);
    },
    stop: () => loop.stop(),
  };
}
