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
  /**
   * CoW Protocol's HooksTrampoline: the only target of an order's hook interactions, which
   * calls the hooks itself so that they never run as the settlement contract (reference §8).
   */
  hooksTrampoline: Address;
  wrappedNativeToken: Address;
  /**
   * CoWSwapEthFlow deployments whose orders the indexer follows (orders selling native ETH,
   * placed on chain): the one the official SDK sends to, first, then the reference's own where
   * it names another (reference §8).
   */
  ethFlowContracts: readonly Address[];
  /**
   * Uniswap-V2 deployments (0.3% fee, constant product) whose pairs price tokens and are offered
   * to solvers. Only addresses checked against Uniswap's own list of V2 deployments
   * (docs.uniswap.org/contracts/v2/reference/smart-contracts/v2-deployments); empty where Uniswap
   * lists none (Gnosis Chain, Linea, Plasma, Ink): those networks price nothing until one is added.
   */
  uniswapV2: readonly UniswapV2Deployment[];
  /** Other names accepted by the token endpoints (`/{chainId}/tokens/...`). */
  aliases: readonly string[];
  /** The stablecoin the token endpoints' `usdPrice` is measured in; null: none known here. */
  usdReference?: UsdReference | null;
  /**
   * Tokens whose holders are indexed even when no order trades them: on the devnet WETH and the
   * demo tokens, so that its holder lists are complete from block 0.
   */
  indexedTokens?: readonly Address[];
}

/** A Uniswap-V2 factory, and the UniswapV2Router02 that swaps through its pairs. */
export interface UniswapV2Deployment {
  factory: Address;
  router: Address;
}

/** A USD stablecoin: one whole token (10^decimals atoms) is taken to be worth one dollar. */
export interface UsdReference {
  address: Address;
  decimals: number;
}

/** GPv2Settlement: the same address on every chain, devnet included (CREATE2, canonical salt). */
export const SETTLEMENT_CONTRACT: Address = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';
/** GPv2VaultRelayer, created by the settlement contract's constructor. */
export const VAULT_RELAYER: Address = '0xc92e8bdf79f0507f65a392b0ab4667716bfe0110';
/**
 * HooksTrampoline on every network but Gnosis Chain; the devnet places its own trampoline here
 * (src/chain/devnet/hooks-trampoline.ts).
 */
export const HOOKS_TRAMPOLINE: Address = '0x60bf78233f48ec42ee3f101b9a05ec7878728006';
/** HooksTrampoline on Gnosis Chain. */
const GNOSIS_HOOKS_TRAMPOLINE: Address = '0x01dcb88678aedd0c4cc9552b20f4718550250574';
/**
 * CoWSwapEthFlow as the official SDK knows it (production) on every chain; the devnet places its
 * own there (src/chain/devnet/eth-flow.ts).
 */
export const ETH_FLOW_CONTRACT: Address = '0xba3cb449bd2b4adddbc894d8697f5170800eadec';
/** Other production eth-flow deployments the reference lists (reference §8), by network. */
const REFERENCE_ETH_FLOW: Readonly<Record<string, Address>> = {
  mainnet: '0x40a50cf069e992aa4536211b23f286ef88752187',
  xdai: '0x40a50cf069e992aa4536211b23f286ef88752187',
  arbitrum_one: '0x6dfe75b5ddce1ade279d4fa6bd6aef3cbb6f49db',
  base: '0x3c3ea1829891bc9bec3d06a81d5d169e52a415e3',
  avalanche: '0x04501b9b1d52e67f6862d157e00d13419d2d6e95',
  polygon: '0x04501b9b1d52e67f6862d157e00d13419d2d6e95',
  linea: '0x04501b9b1d52e67f6862d157e00d13419d2d6e95',
  bnb: '0x04501b9b1d52e67f6862d157e00d13419d2d6e95',
  plasma: '0x04501b9b1d52e67f6862d157e00d13419d2d6e95',
  sepolia: '0x0b7795e18767259cc253a2df471db34c72b49516',
};
/** The pseudo-token standing for the chain's native currency in buy orders. */
export const NATIVE_TOKEN_MARKER: Address = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

function network(
  name: string,
  label: string,
  chainId: number,
  wrappedNativeToken: string,
  uniswapV2: readonly { factory: string; router: string }[],
  aliases: readonly string[] = [],
): Network {
  return {
    name,
    label,
    chainId,
    rpcUrlVariable: `${name.toUpperCase()}_RPC_URL`,
    settlementContract: SETTLEMENT_CONTRACT,
    vaultRelayer: VAULT_RELAYER,
    hooksTrampoline: name === 'xdai' ? GNOSIS_HOOKS_TRAMPOLINE : HOOKS_TRAMPOLINE,
    wrappedNativeToken: wrappedNativeToken.toLowerCase() as Address,
    ethFlowContracts: [
      ETH_FLOW_CONTRACT,
      ...(name in REFERENCE_ETH_FLOW ? [REFERENCE_ETH_FLOW[name]!] : []),
    ],
    uniswapV2: uniswapV2.map(({ factory, router }) => ({
      factory: factory.toLowerCase() as Address,
      router: router.toLowerCase() as Address,
    })),
    aliases,
    usdReference: USD_REFERENCES[name] ?? null,
    indexedTokens: INDEXED_TOKENS[name] ?? [],
  };
}

/** Uniswap's V2 factory on Avalanche and Polygon. */
const UNISWAP_V2_AVALANCHE_POLYGON = '0x9e5A52f57b3038F1B8EeE45F28b3C1967e22799C';
/** Uniswap's V2 factory on Base and BNB Chain. */
const UNISWAP_V2_BASE_BNB = '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6';
/** Uniswap's V2 router on Arbitrum, Avalanche, Base and BNB Chain. */
const UNISWAP_V2_ROUTER_L2 = '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24';
/**
 * The real `UniswapV2Factory` the devnet deploys through the deterministic-deployment proxy
 * (src/chain/devnet/pools.ts): the same address on every fresh devnet.
 */
export const DEVNET_UNISWAP_V2_FACTORY: Address = '0x9ae48baac11b92cc541c74fe00f2a1c6cb4489d9';
/** The real `UniswapV2Router02` the devnet deploys the same way, for its factory and WETH. */
export const DEVNET_UNISWAP_V2_ROUTER: Address = '0x32d30ebfb0b797ad69013da5eda1f77a84eb7c71';

/**
 * The devnet's demo ERC-20s (src/chain/devnet/deploy.ts), created by its deployer at nonces 0, 1
 * and 2: the same addresses on every fresh devnet.
 */
export const DEVNET_DEMO_TOKENS = {
  DUSD: '0x700b6a60ce7eaaea56f065753d8dcb9653dbad35',
  DCOW: '0xa15bb66138824a1c7167f5e85b957d04dd34e468',
  DDAI: '0xb19b36b1456e65e3a6d514d3f715f204bd59f431',
} as const satisfies Record<string, Address>;

/**
 * Circle's USDC (6 decimals) where its address was checked against two published lists; on the
 * devnet its demo stablecoin. Networks without one answer usdPrice with a 404.
 */
const USD_REFERENCES: Readonly<Record<string, UsdReference>> = {
  mainnet: { address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', decimals: 6 },
  arbitrum_one: { address: '0xaf88d065e77c8cc2239327c5edb3a432268e5831', decimals: 6 },
  base: { address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', decimals: 6 },
  avalanche: { address: '0xb97ef9ef8734c71904d8002f8b6bc66dd9c48a6e', decimals: 6 },
  polygon: { address: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359', decimals: 6 },
  sepolia: { address: '0x1c7d4b196cb0c7b01d743fbc6116a902379c7238', decimals: 6 },
  devnet: { address: DEVNET_DEMO_TOKENS.DUSD, decimals: 18 },
};

const INDEXED_TOKENS: Readonly<Record<string, readonly Address[]>> = {
  // The devnet's WETH sits at mainnet's address.
  devnet: ['0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', ...Object.values(DEVNET_DEMO_TOKENS)],
};

export const NETWORKS: readonly Network[] = [
  network(
    'mainnet',
    'Ethereum',
    1,
    '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    [
      {
        factory: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
        router: '0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D',
      },
    ],
    ['ethereum'],
  ),
  network(
    'xdai',
    'Gnosis Chain',
    100,
    '0xe91D153E0b41518A2Ce8Dd3D7944Fa863463a97d',
    [],
    ['gnosis'],
  ),
  network(
    'arbitrum_one',
    'Arbitrum One',
    42161,
    '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
    [{ factory: '0xf1D7CC64Fb4452F05c498126312eBE29f30Fbcf9', router: UNISWAP_V2_ROUTER_L2 }],
    ['arbitrum'],
  ),
  network('base', 'Base', 8453, '0x4200000000000000000000000000000000000006', [
    { factory: UNISWAP_V2_BASE_BNB, router: UNISWAP_V2_ROUTER_L2 },
  ]),
  network('avalanche', 'Avalanche', 43114, '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7', [
    { factory: UNISWAP_V2_AVALANCHE_POLYGON, router: UNISWAP_V2_ROUTER_L2 },
  ]),
  network('polygon', 'Polygon', 137, '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270', [
    { factory: UNISWAP_V2_AVALANCHE_POLYGON, router: '0xedf6066a2b290C185783862C7F4776A2C8077AD1' },
  ]),
  network('bnb', 'BNB Chain', 56, '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c', [
    { factory: UNISWAP_V2_BASE_BNB, router: UNISWAP_V2_ROUTER_L2 },
  ]),
  network('linea', 'Linea', 59144, '0xe5d7c2a44ffddf6b295a15c148167daaaf5cf34f', []),
  network('plasma', 'Plasma', 9745, '0x6100E367285b01F48D07953803A2d8dCA5D19873', []),
  network('ink', 'Ink', 57073, '0x4200000000000000000000000000000000000006', []),
  network('sepolia', 'Sepolia', 11155111, '0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14', [
    {
      factory: '0xF62c03E08ada871A0bEb309762E260a7a6a880E6',
      router: '0xeE567Fe1712Faf6149d80dA1E6934E354124CfE3',
    },
  ]),
  // The local anvil chain. It mirrors mainnet's addresses: the devnet deploys WETH9 at
  // mainnet's WETH address, so tokens lists and examples read the same on both.
  network('devnet', 'Local devnet (anvil)', 31337, '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', [
    { factory: DEVNET_UNISWAP_V2_FACTORY, router: DEVNET_UNISWAP_V2_ROUTER },
  ]),
];

const byName = new Map(NETWORKS.map((n) => [n.name, n]));

export function networkByChainId(chainId: number): Network | undefined {
  return NETWORKS.find((n) => n.chainId === chainId);
}

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
