/**
 * The network registry: every chain batchbook serves, keyed by its API path segment
 * (reference §8). Pure data; whether a network is live (has an RPC URL) is configuration.
 */
import type { Address } from './events.js';

export interface Network {
  /** API path segment, e.g. `mainnet` in `/mainnet/api/v1/orders`. */
  name: string;
  /** Human name for logs and the README. */
  label: string;
  chainId: number;
  /** Name of the environment variable whose RPC URL makes the network live. */
  rpcUrlVariable: string;
  settlementContract: Address;
  vaultRelayer: Address;
  wrappedNativeToken: Address;
  /** Other names accepted by the token endpoints (`/{chainId}/tokens/...`). */
  aliases: readonly string[];
}

/** GPv2Settlement: the same address on every chain, devnet included (CREATE2, canonical salt). */
export const SETTLEMENT_CONTRACT: Address = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';
/** GPv2VaultRelayer, created by the settlement contract's constructor. */
export const VAULT_RELAYER: Address = '0xc92e8bdf79f0507f65a392b0ab4667716bfe0110';
/** The pseudo-token standing for the chain's native currency in buy orders. */
export const NATIVE_TOKEN_MARKER: Address = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

function network(
  name: string,
  label: string,
  chainId: number,
  wrappedNativeToken: string,
  aliases: readonly string[] = [],
): Network {
  return {
    name,
    label,
    chainId,
    rpcUrlVariable: `${name.toUpperCase()}_RPC_URL`,
    settlementContract: SETTLEMENT_CONTRACT,
    vaultRelayer: VAULT_RELAYER,
    wrappedNativeToken: wrappedNativeToken.toLowerCase() as Address,
    aliases,
  };
}

export const NETWORKS: readonly Network[] = [
  network('mainnet', 'Ethereum', 1, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', ['ethereum']),
  network('xdai', 'Gnosis Chain', 100, '0xe91D153E0b41518A2Ce8Dd3D7944Fa863463a97d', ['gnosis']),
  network('arbitrum_one', 'Arbitrum One', 42161, '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1', [
    'arbitrum',
  ]),
  network('base', 'Base', 8453, '0x4200000000000000000000000000000000000006'),
  network('avalanche', 'Avalanche', 43114, '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7'),
  network('polygon', 'Polygon', 137, '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270'),
  network('bnb', 'BNB Chain', 56, '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c'),
  network('linea', 'Linea', 59144, '0xe5d7c2a44ffddf6b295a15c148167daaaf5cf34f'),
  network('plasma', 'Plasma', 9745, '0x6100E367285b01F48D07953803A2d8dCA5D19873'),
  network('ink', 'Ink', 57073, '0x4200000000000000000000000000000000000006'),
  network('sepolia', 'Sepolia', 11155111, '0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14'),
  // The local anvil chain. It mirrors mainnet's addresses: the devnet deploys WETH9 at
  // mainnet's WETH address, so tokens lists and examples read the same on both.
  network('devnet', 'Local devnet (anvil)', 31337, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'),
];

const byName = new Map(NETWORKS.map((n) => [n.name, n]));

export function networkByName(name: string): Network | undefined {
  return byName.get(name);
}

/** Resolves a token-endpoint chain reference: a numeric chain id, a path segment or an alias. */
export function networkByChainRef(ref: string): Network | undefined {
  const lower = ref.toLowerCase();
  return NETWORKS.find(
    (n) => String(n.chainId) === lower || n.name === lower || n.aliases.includes(lower),
  );
}
