/**
 * GET /api/v1/token/{token}/native_price: the token's price in the chain's native token
 * (native atoms per token atom), from the same liquidity the quotes use.
 */
import type { Address } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { PriceEstimator } from '../chain/prices.js';
import { ChainUnavailableError } from '../chain/rpc.js';
import { reject } from './rejection.js';

export async function nativePrice(
  prices: Pick<PriceEstimator, 'nativePrice'> | null,
  network: Network,
  token: Address,
): Promise<{ price: number }> {
  if (!prices) {
    reject('NetworkNotLive', `${network.label} is not live: set ${network.rpcUrlVariable}`);
  }
  try {
    const price = await prices.nativePrice(token);
    if (price === null) reject('NoLiquidity', 'no route found');
    return { price };
  } catch (error) {
    if (error instanceof ChainUnavailableError) reject('ChainUnavailable', error.message);
    throw error;
  }
}
