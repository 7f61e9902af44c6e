/**
 * The token endpoints' chain reads: each live network's token holders (indexed from Transfer
 * logs of the traded tokens), token decimals, and the price reads of `native_price` and
 * `usdPrice`, which remember for a while the tokens found without a price or decimals (any
 * caller may name any address: naming them again asks the chain nothing).
 */
import { rememberMisses } from '../chain/remembered-misses.js';
import { createTokenDecimals, type TokenDecimals } from '../chain/token-decimals.js';
import { startTokenHolderIndexers } from '../chain/token-holders.js';
import type { UsdPriceDeps } from '../commands/usd-price.js';
import type { Config } from '../config.js';
import type { Address } from '../domain/events.js';
import { inTransaction } from '../postgres/transaction.js';
import type { ProjectionThreadEngine } from '../projection-thread/thread.js';
import { createTradedTokensQuery } from '../queries/traded-tokens.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';
import type { Lifetime } from './lifetime.js';

export interface TokenReads {
  /** Per live network. */
  decimals: ReadonlyMap<string, TokenDecimals>;
  /** Per live network. */
  prices: ReadonlyMap<string, UsdPriceDeps>;
}

/** Runs after the projections: the orders read model names the traded tokens. */
export async function startTokenReads(
  config: Config,
  infra: Infrastructure,
  chains: Chains,
  _startedAfter: { projections: ProjectionThreadEngine },
  clock: () => Date,
  life: Lifetime,
): Promise<TokenReads> {
  const rpcs = new Map([...chains.live.names].map((name) => [name, chains.live.rpc(name)!]));
  const holders = await startTokenHolderIndexers(
    {
      rpcs,
      pool: infra.pool,
      inTransaction,
      requestLeadership: infra.requestLeadership,
      logger: infra.logger,
      tradedTokens: createTradedTokensQuery(infra.db),
    },
    config.indexer,
  );
  life.onStop(() => holders.stop());
  const misses = { clock, ttlMs: config.unknownTokenCacheSeconds * 1000 };
  const decimals = new Map([...rpcs].map(([name, rpc]) => [name, createTokenDecimals(rpc)]));
  const prices = new Map(
    [...rpcs].map(([name]): [string, UsdPriceDeps] => {
      const estimator = chains.live.prices(name)!;
      const ofNetwork = decimals.get(name)!;
      return [
        name,
        {
          prices: { nativePrice: rememberMisses((t: Address) => estimator.nativePrice(t), misses) },
          decimals: { of: rememberMisses((t: Address) => ofNetwork.of(t), misses) },
        },
      ];
    }),
  );
  return { decimals, prices };
}
