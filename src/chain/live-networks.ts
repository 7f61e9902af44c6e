/**
 * Everything the service runs per live network: the JSON-RPC client, the order checks of
 * submission, and the chain indexer. `devnet` is live when the embedded anvil runs (or
 * DEVNET_RPC_URL names one); any other network when its `<NAME>_RPC_URL` is set.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { networkByName } from '../domain/networks.js';
import type { Ledger } from '../ledger/port.js';
import { startChainIndexer, type ChainIndexer, type IndexerOptions } from './indexer.js';
import { createOrderChainChecks, type OrderChainChecks } from './order-checks.js';
import type { RequestLeadership } from '../ledger/leadership.js';
import type { InTransaction } from './ports.js';
import { createPriceEstimator, type PriceEstimator } from './prices.js';
import { createChainRpc, type ChainRpc, type RpcObserver, type RpcOptions } from './rpc.js';

export interface LiveNetworksOptions {
  rpcUrls: ReadonlyMap<string, string>;
  rpc: RpcOptions;
  indexer: {
    pollIntervalMs: number;
    maxBlockRange: number;
    confirmations: ReadonlyMap<string, number>;
    startBlocks: ReadonlyMap<string, number>;
  };
  ledger: Ledger;
  pool: pg.Pool;
  inTransaction: InTransaction;
  requestLeadership: RequestLeadership;
  logger: Logger;
  /** Told how each JSON-RPC request went. */
  rpcObserver: RpcObserver;
}

export interface LiveNetworks {
  names: ReadonlySet<string>;
  /** The order checks of a live network. */
  checks(network: string): OrderChainChecks;
  /** The JSON-RPC client of a network; null when it is not live. */
  rpc(network: string): ChainRpc | null;
  /** The price estimator of a network; null when it is not live. */
  prices(network: string): PriceEstimator | null;
  /** The chain indexer of a network; null when it is not live. */
  indexer(network: string): ChainIndexer | null;
  stop(): Promise<void>;
}

export async function startLiveNetworks(options: LiveNetworksOptions): Promise<LiveNetworks> {
  const rpcs = new Map<string, ChainRpc>();
  const checks = new Map<string, OrderChainChecks>();
  const prices = new Map<string, PriceEstimator>();
  const indexers = new Map<string, ChainIndexer>();
  const stop = async () => {
    await Promise.all([...indexers.values()].map((i) => i.stop()));
    for (const rpc of rpcs.values()) rpc.close();
  };
  try {
    for (const [name, url] of options.rpcUrls) {
      const network = networkByName(name)!;
      const rpc = createChainRpc(network, url, options.rpc, options.rpcObserver);
      rpcs.set(name, rpc);
      checks.set(name, createOrderChainChecks(rpc, network));
      prices.set(name, createPriceEstimator(rpc, network));
      const indexerOptions: IndexerOptions = {
        confirmations: options.indexer.confirmations.get(name) ?? 0,
        pollIntervalMs: options.indexer.pollIntervalMs,
        maxBlockRange: options.indexer.maxBlockRange,
        startBlock: options.indexer.startBlocks.get(name) ?? null,
      };
      indexers.set(
        name,
        await startChainIndexer(
          {
            rpc,
            ledger: options.ledger,
            pool: options.pool,
            inTransaction: options.inTransaction,
            requestLeadership: options.requestLeadership,
            logger: options.logger,
          },
          indexerOptions,
        ),
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    names: new Set(rpcs.keys()),
    checks(network) {
      const found = checks.get(network);
      if (!found) throw new Error(`${network} is not live`);
      return found;
    },
    rpc: (network) => rpcs.get(network) ?? null,
    prices: (network) => prices.get(network) ?? null,
    indexer: (network) => indexers.get(network) ?? null,
    stop,
  };
}
