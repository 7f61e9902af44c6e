/**
 * The token-holder indexer behind GET /{chainId}/tokens/{token}/topHolders: per live network, the
 * balances of the tokens the book trades (the sell and buy tokens of its orders) and of the
 * network's `indexedTokens`, kept from their ERC-20 `Transfer` logs.
 *
 * - Confirmed blocks only: it indexes up to `head - confirmations`, as the chain indexer does.
 * - A cursor per token. Tokens at the same cursor are read together, up to `MAX_ADDRESSES` per
 *   `eth_getLogs`, so a network that has caught up costs one request per poll.
 * - A token starts at the network's start block (the devnet's is 0: its lists are complete). A
 *   public chain without one starts at the confirmed head when the token is first traded, so only
 *   later transfers count and its lists are not complete.
 * - Reorgs: a token whose cursor block left the canonical chain is rebuilt from its start. Simple
 *   and correct; behind the confirmations a reorg rarely reaches a cursor.
 * - One instance per network across processes (an advisory lock); the others wait. The cursors
 *   move by compare-and-set, so a leader that lost its lock mid-step cannot apply a range twice.
 */
import { toQuantity, type Block } from 'ethers';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Address, Hex } from '../domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../domain/networks.js';
import type { BlockRef } from './indexer-store.js';
import { ChainMoved, startLeaderLoop } from './leader-loop.js';
import type { RequestLeadership } from '../ledger/leadership.js';
import type { InTransaction } from './ports.js';
import type { ChainRpc } from './rpc.js';
import type { RawLog } from './settlement-logs.js';
import {
  createTokenHoldersStore,
  CursorConflict,
  type TokenHoldersStore,
} from './token-holders-store.js';
import { balanceChanges, TRANSFER_TOPIC } from './transfer-logs.js';

export interface TokenHoldersOptions {
  pollIntervalMs: number;
  /** Most blocks per `eth_getLogs` request (public RPCs cap the range). */
  maxBlockRange: number;
  /** Per network: blocks to wait before indexing one. */
  confirmations: ReadonlyMap<string, number>;
  /** Per network: where a new token starts; absent: at the confirmed head. */
  startBlocks: ReadonlyMap<string, number>;
}

export interface TokenHoldersDeps {
  /** One per live network. */
  rpcs: ReadonlyMap<string, ChainRpc>;
  pool: pg.Pool;
  inTransaction: InTransaction;
  requestLeadership: RequestLeadership;
  logger: Logger;
  /** The tokens the network's orders sell or buy. */
  tradedTokens(network: string): Promise<readonly Address[]>;
}

export interface TokenHolderIndexers {
  stop(): Promise<void>;
}

/** Addresses per `eth_getLogs`: providers limit the size of a filter. */
const MAX_ADDRESSES = 100;
/** The traded tokens are read again every this many polls: a scan of every order is not free. */
const TRACKED_REFRESH_POLLS = 10;

const lower = (hex: string) => hex.toLowerCase() as Hex;

/** Their store's tables must exist (the store migrations: the service's start-up pass). */
export async function startTokenHolderIndexers(
  deps: TokenHoldersDeps,
  options: TokenHoldersOptions,
): Promise<TokenHolderIndexers> {
  const indexers = [...deps.rpcs.values()].map((rpc) =>
    startTokenHolderIndexer(rpc, deps, {
      pollIntervalMs: options.pollIntervalMs,
      maxBlockRange: options.maxBlockRange,
      confirmations: options.confirmations.get(rpc.network.name) ?? 0,
      startBlock: options.startBlocks.get(rpc.network.name) ?? null,
    }),
  );
  return {
    async stop() {
      await Promise.all(indexers.map((stop) => stop()));
    },
  };
}

interface NetworkOptions {
  pollIntervalMs: number;
  maxBlockRange: number;
  confirmations: number;
  startBlock: number | null;
}

/** Tokens that share a cursor (null: not started yet), read together. */
interface Group {
  tokens: Address[];
  cursor: BlockRef | null;
}

function groupsOf(tokens: readonly Address[], cursors: ReadonlyMap<Address, BlockRef>): Group[] {
  const groups: Group[] = [];
  const open = new Map<string, Group>();
  for (const token of tokens) {
    const cursor = cursors.get(token) ?? null;
    const key = cursor ? `${cursor.number}/${cursor.hash}` : 'start';
    let group = open.get(key);
    if (!group || group.tokens.length === MAX_ADDRESSES) {
      group = { tokens: [], cursor };
      open.set(key, group);
      groups.push(group);
    }
    group.tokens.push(token);
  }
  return groups;
}

/** Starts one network's indexer; the result stops it. */
function startTokenHolderIndexer(
  rpc: ChainRpc,
  deps: TokenHoldersDeps,
  options: NetworkOptions,
): () => Promise<void> {
  const network = rpc.network;
  const store: TokenHoldersStore = createTokenHoldersStore(
    deps.pool,
    deps.inTransaction,
    network.name,
  );
  const log = deps.logger.child({ network: network.name, component: 'token-holders' });
  const alwaysIndexed = network.indexedTokens ?? [];

  const block = async (number: number): Promise<Block | null> =>
    rpc.request(`block ${number}`, (p) => p.getBlock(number));
  const ref = (b: Block): BlockRef => ({ number: b.number, hash: lower(b.hash!) });
  const isCanonical = async (at: BlockRef) => (await block(at.number))?.hash === at.hash;

  let tracked: Address[] = [];
  let pollsSinceRefresh = TRACKED_REFRESH_POLLS;
  /** The network's own tokens and the traded ones; the native token has no Transfer logs. */
  const trackedTokens = async (): Promise<Address[]> => {
    if (pollsSinceRefresh++ < TRACKED_REFRESH_POLLS) return tracked;
    const traded = await deps.tradedTokens(network.name);
    const all = new Set([...alwaysIndexed, ...traded].map(lower));
    all.delete(NATIVE_TOKEN_MARKER);
    tracked = [...all].sort();
    pollsSinceRefresh = 1;
    return tracked;
  };

  /** Tokens whose cursor block is no longer on the canonical chain. */
  const staleTokens = async (tokens: readonly Address[], cursors: Map<Address, BlockRef>) => {
    const canonical = new Map<string, boolean>();
    const stale: Address[] = [];
    for (const { tokens: group, cursor } of groupsOf(tokens, cursors)) {
      if (!cursor) continue;
      const key = `${cursor.number}/${cursor.hash}`;
      if (!canonical.has(key)) canonical.set(key, await isCanonical(cursor));
      if (!canonical.get(key)) stale.push(...group);
    }
    return stale;
  };

  /**
   * Applies blocks `from`..`to` of these tokens on top of `cursor`. `to` was read first; after
   * the logs every log's block, `to` itself and `from`'s parent must still be canonical, or the
   * chain moved during the step (a reorg) and nothing is recorded.
   */
  const indexRange = async (
    tokens: Address[],
    cursor: BlockRef | null,
    from: number,
    to: Block,
  ) => {
    const filter = {
      address: tokens,
      topics: [TRANSFER_TOPIC],
      fromBlock: toQuantity(from),
      toBlock: toQuantity(to.number),
    };
    const logs: RawLog[] = await rpc.request(`transfer logs ${from}..${to.number}`, (p) =>
      p.send('eth_getLogs', [filter]),
    );
    const hashes = new Map<number, Hex>([[to.number, lower(to.hash!)]]);
    for (const l of logs) {
      const number = Number(l.blockNumber);
      let hash = hashes.get(number);
      if (hash === undefined) {
        const fetched = await block(number);
        if (!fetched) throw new ChainMoved();
        hashes.set(number, (hash = lower(fetched.hash!)));
      }
      if (hash !== lower(l.blockHash)) throw new ChainMoved();
    }
    if (!(await isCanonical(ref(to)))) throw new ChainMoved();
    if (cursor && lower((await block(from))?.parentHash ?? '0x') !== cursor.hash) {
      throw new ChainMoved();
    }
    await store.advance(tokens, cursor, balanceChanges(logs), ref(to));
  };

  /** One pass: restart tokens a reorg left behind, start new ones, catch all up to the head. */
  const step = async (isStopping: () => boolean): Promise<void> => {
    const head = await rpc.request('block number', (p) => p.getBlockNumber());
    const target = head - options.confirmations;
    if (target < 0) return;
    const tokens = await trackedTokens();
    let cursors = await store.cursors();
    const stale = await staleTokens(tokens, cursors);
    if (stale.length) {
      await store.reset(stale);
      log.warn({ tokens: stale }, 'reorg: token balances rebuilt from their start');
      cursors = await store.cursors();
    }
    const fresh = tokens.filter((token) => !cursors.has(token));
    if (fresh.length && options.startBlock === null) {
      // No history wanted: new tokens start at the confirmed head.
      const start = await block(target);
      if (!start) throw new ChainMoved();
      await store.advance(fresh, null, [], ref(start));
      cursors = await store.cursors();
    }
    for (const group of groupsOf(tokens, cursors)) {
      let { cursor } = group;
      let from = cursor ? cursor.number + 1 : options.startBlock!;
      while (from <= target && !isStopping()) {
        const to = await block(Math.min(from + options.maxBlockRange - 1, target));
        if (!to) throw new ChainMoved();
        await indexRange(group.tokens, cursor, from, to);
        cursor = ref(to);
        from = to.number + 1;
      }
    }
  };

  const loop = startLeaderLoop({
    requestLeadership: deps.requestLeadership,
    key: ['batchbook.chain.token-holders', network.name],
    pollIntervalMs: options.pollIntervalMs,
    logger: log,
    step,
    expected: (error) => error instanceof CursorConflict,
  });
  return () => loop.stop();
}
