/**
 * GET /{chainId}/tokens/{token}/usdPrice: a whole token's value in US dollars, from the same
 * liquidity as the native prices. Both the token and the network's USD reference stablecoin are
 * priced in native atoms per atom, so
 *   price = nativePrice(token) × 10^tokenDecimals ÷ (nativePrice(usd) × 10^usdDecimals).
 */
import type { PriceEstimator } from '../chain/prices.js';
import { ChainUnavailableError } from '../chain/rpc.js';
import type { TokenDecimals } from '../chain/token-decimals.js';
import type { Address } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import { reject } from './rejection.js';

export interface UsdPriceDeps {
  /** Both null when the network is not live. */
  prices: Pick<PriceEstimator, 'nativePrice'> | null;
  decimals: TokenDecimals | null;
}

export async function usdPrice(
  deps: UsdPriceDeps,
  network: Network,
  token: Address,
): Promise<{ price: number }> {
  const { prices, decimals } = deps;
  if (!prices || !decimals) {
    reject(
      'NetworkNotLive',
      `${network.label} is not live on this server: set ${network.rpcUrlVariable} to its RPC URL`,
    );
  }
  const usd = network.usdReference;
  if (!usd) reject('NotFound', `no USD reference token is known on ${network.label}`);
  try {
    // First, and alone: a token without decimals (no contract) is priced no further. Known
    // decimals are kept, so this costs a round trip once per token.
    const tokenDecimals = await decimals.of(token);
    if (tokenDecimals === null) reject('NotFound', `${token} has no ERC-20 decimals()`);
    const [tokenPrice, usdNativePrice] = await Promise.all([
      prices.nativePrice(token),
      prices.nativePrice(usd.address),
    ]);
    if (tokenPrice === null) reject('NoLiquidity', `no pool on ${network.label} prices ${token}`);
    if (usdNativePrice === null) {
      reject('NoLiquidity', `no pool on ${network.label} prices the USD reference ${usd.address}`);
    }
    return { price: (tokenPrice / usdNativePrice) * 10 ** (tokenDecimals - usd.decimals) };
  } catch (error) {
    if (error instanceof ChainUnavailableError) reject('ChainUnavailable', error.message);
    throw error;
  }
}
