/**
 * The networks this app offers and the tokens it can name: the order book's networks (the
 * server says which are live: writes to the others are refused with a reason), and, as a token
 * list does for a wallet, each network's well-known tokens with their symbols and decimals.
 * Other tokens show as addresses and amounts in base units.
 */

export interface NetworkChoice {
  name: string;
  label: string;
  chainId: number;
}

export const NETWORKS: readonly NetworkChoice[] = [
  { name: 'devnet', label: 'Devnet (local anvil)', chainId: 31337 },
  { name: 'mainnet', label: 'Ethereum', chainId: 1 },
  { name: 'xdai', label: 'Gnosis Chain', chainId: 100 },
  { name: 'arbitrum_one', label: 'Arbitrum One', chainId: 42161 },
  { name: 'base', label: 'Base', chainId: 8453 },
  { name: 'avalanche', label: 'Avalanche', chainId: 43114 },
  { name: 'polygon', label: 'Polygon', chainId: 137 },
  { name: 'bnb', label: 'BNB Chain', chainId: 56 },
  { name: 'linea', label: 'Linea', chainId: 59144 },
  { name: 'plasma', label: 'Plasma', chainId: 9745 },
  { name: 'ink', label: 'Ink', chainId: 57073 },
  { name: 'sepolia', label: 'Sepolia', chainId: 11155111 },
];

export interface KnownToken {
  address: string;
  symbol: string;
  decimals: number;
}

const WETH_MAINNET = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

const TOKENS: Readonly<Record<string, readonly KnownToken[]>> = {
  // The devnet's WETH sits at mainnet's address; its demo tokens at their deployer's nonces.
  devnet: [
    { address: WETH_MAINNET, symbol: 'WETH', decimals: 18 },
    { address: '0x700b6a60ce7eaaea56f065753d8dcb9653dbad35', symbol: 'DUSD', decimals: 18 },
    { address: '0xa15bb66138824a1c7167f5e85b957d04dd34e468', symbol: 'DCOW', decimals: 18 },
    { address: '0xb19b36b1456e65e3a6d514d3f715f204bd59f431', symbol: 'DDAI', decimals: 18 },
  ],
  mainnet: [
    { address: WETH_MAINNET, symbol: 'WETH', decimals: 18 },
    { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', symbol: 'USDC', decimals: 6 },
    { address: '0x6b175474e89094c44da98b954eedeac495271d0f', symbol: 'DAI', decimals: 18 },
  ],
};

export const networkTokens = (network: string): readonly KnownToken[] => TOKENS[network] ?? [];

export function knownToken(network: string, address: string): KnownToken | null {
  const lower = address.toLowerCase();
  return networkTokens(network).find((t) => t.address === lower) ?? null;
}

export const networkChoice = (network: string): NetworkChoice | null =>
  NETWORKS.find((n) => n.name === network) ?? null;

/**
 * anvil's published test mnemonic: its first five accounts are the devnet's funded demo
 * accounts, which approved the vault relayer for every demo token. Never use them elsewhere.
 */
export const DEVNET_DEMO_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEVNET_DEMO_ACCOUNTS = 5;
