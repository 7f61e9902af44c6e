/**
 * Token amounts as people read them: a small registry of tokens whose symbol and decimals are
 * known without asking the chain (a projector may not), and decimal formatting of atoms.
 *
 * Known: each network's wrapped native token (WETH9 and its clones: 18 decimals), the USD
 * stablecoins of the token endpoints (src/domain/networks.ts: USDC, 6 decimals; the devnet's
 * DUSD), and the devnet's demo tokens (18 decimals). Any other token is shown in atoms with its
 * address.
 */
import type { Address } from './events.js';
import { DEVNET_DEMO_TOKENS, NETWORKS } from './networks.js';

export interface TokenUnits {
  symbol: string;
  decimals: number;
}

/** Symbols of the wrapped native tokens, by network (all of them have 18 decimals). */
const WRAPPED_NATIVE_SYMBOLS: Readonly<Record<string, string>> = {
  mainnet: 'WETH',
  xdai: 'WXDAI',
  arbitrum_one: 'WETH',
  base: 'WETH',
  avalanche: 'WAVAX',
  polygon: 'WMATIC',
  bnb: 'WBNB',
  linea: 'WETH',
  ink: 'WETH',
  sepolia: 'WETH',
  devnet: 'WETH',
};

function buildRegistry(): ReadonlyMap<string, TokenUnits> {
  const registry = new Map<string, TokenUnits>();
  const add = (network: string, token: string, units: TokenUnits) =>
    registry.set(`${network}/${token.toLowerCase()}`, units);
  for (const network of NETWORKS) {
    const wrapped = WRAPPED_NATIVE_SYMBOLS[network.name];
    if (wrapped) add(network.name, network.wrappedNativeToken, { symbol: wrapped, decimals: 18 });
    const usd = network.usdReference;
    if (usd && network.name !== 'devnet') {
      add(network.name, usd.address, { symbol: 'USDC', decimals: usd.decimals });
    }
  }
  for (const [symbol, token] of Object.entries(DEVNET_DEMO_TOKENS)) {
    add('devnet', token, { symbol, decimals: 18 });
  }
  return registry;
}

const REGISTRY = buildRegistry();

/** The token's symbol and decimals on `network`, when this registry knows them. */
export function tokenUnits(network: string, token: Address): TokenUnits | null {
  return REGISTRY.get(`${network}/${token.toLowerCase()}`) ?? null;
}

/** `atoms` / 10^decimals in plain decimal notation, without trailing zeros: 1500000n, 6 → "1.5". */
export function formatUnits(atoms: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) throw new RangeError(`bad decimals ${decimals}`);
  const sign = atoms < 0n ? '-' : '';
  const magnitude = atoms < 0n ? -atoms : atoms;
  if (decimals === 0) return `${sign}${magnitude}`;
  const scale = 10n ** BigInt(decimals);
  const whole = magnitude / scale;
  const fraction = (magnitude % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** "1.5 WETH" for a known token, "1500 atoms of 0xabc…" (the full address) otherwise. */
export function formatTokenAmount(network: string, token: Address, atoms: bigint): string {
  const units = tokenUnits(network, token);
  return units
    ? `${formatUnits(atoms, units.decimals)} ${units.symbol}`
    : `${atoms} atoms of ${token.toLowerCase()}`;
}

/** The token's symbol, or its address when unknown. */
export function tokenName(network: string, token: Address): string {
  return tokenUnits(network, token)?.symbol ?? token.toLowerCase();
}
