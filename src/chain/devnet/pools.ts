/**
 * The devnet's liquidity: the real Uniswap V2 factory and a few funded pairs, so quotes and
 * native prices come from the same contracts and arithmetic as on mainnet.
 *
 * The factory is the `@uniswap/v2-core` build and the router the `@uniswap/v2-periphery` one.
 * On the devnet both are created through the deterministic-deployment proxy, so they land at the
 * same addresses on every fresh devnet. A local chain that plays another network (a fork's
 * upstream in tests) has them where that network's registry looks for them, as a fork of the
 * real network finds them: their code is placed there (./canonical-code.ts), so the factory's
 * pairs are created from, and found by the router at, the network's own addresses. Pairs are
 * made with `createPair` and funded the way the router does it: tokens sent to the pair, then
 * `pair.mint`.
 *
 * Idempotent: a pool that holds reserves is left alone, so a persisted chain gets no
 * transaction; one funded only in part (a start cut short) is topped up before minting.
 */
import {
  AbiCoder,
  Contract,
  Interface,
  type InterfaceAbi,
  type JsonRpcProvider,
  ZeroAddress,
  concat,
  encodeBytes32String,
  getCreate2Address,
  keccak256,
  parseUnits,
} from 'ethers';
import { createRequire } from 'node:module';
import type { Address } from '../../domain/events.js';
import {
  DEVNET_UNISWAP_V2_FACTORY,
  DEVNET_UNISWAP_V2_ROUTER,
  networkByChainId,
  type UniswapV2Deployment,
} from '../../domain/networks.js';
import { sortTokens } from '../../domain/amm.js';
import { DEVNET_CHAIN_ID } from './anvil.js';
import type { Artifact } from './artifacts.js';
import { placeRuntimeCode } from './canonical-code.js';
import type { DemoToken } from './deploy.js';
import type { NodeTransaction } from './node-client.js';

export interface DevnetPool {
  /** The pair's own order: token0 < token1. */
  token0: Address;
  token1: Address;
  address: Address;
}

/** What the pools need from the deployment in progress (passed in: deploy.ts calls this file). */
export interface PoolSetup {
  provider: JsonRpcProvider;
  chainId: number;
  /** Holds the demo tokens' minter role, pays the WETH, becomes the factory's feeToSetter. */
  deployer: Address;
  weth: DemoToken;
  tokens: readonly DemoToken[];
  send(tx: NodeTransaction): Promise<Address | null>;
  /** The deterministic-deployment proxy. */
  create2Proxy: Address;
}

export interface DevnetLiquidity {
  factory: Address;
  /** UniswapV2Router02 for the factory and the devnet's WETH: what solvers' swaps may call. */
  router: Address;
  pools: DevnetPool[];
}

/**
 * Whole tokens (all 18 decimals) per pool: 1 WETH = 3,000 DUSD = 10,000 DCOW = 3,000 DDAI, 1,000
 * WETH deep. No DUSD/DDAI pool, so that trade routes through WETH. The DUSD/DCOW pool is at the
 * same price but shallow: small trades between them go direct, large ones through WETH.
 */
const POOLS = [
  { symbols: ['WETH', 'DUSD'], amounts: ['1000', '3000000'] },
  { symbols: ['WETH', 'DCOW'], amounts: ['1000', '10000000'] },
  { symbols: ['WETH', 'DDAI'], amounts: ['1000', '3000000'] },
  { symbols: ['DUSD', 'DCOW'], amounts: ['30000', '100000'] },
] as const;

const FACTORY_SALT = encodeBytes32String('batchbook Uniswap V2');
const ROUTER_SALT = encodeBytes32String('batchbook Uniswap V2 Router');

const require = createRequire(import.meta.url);
/** Uniswap's build JSON, whose bytecode has no 0x prefix, as an artifact. */
function uniswapArtifact(file: string): Artifact {
  const { abi, bytecode } = require(file) as { abi: InterfaceAbi; bytecode: string };
  return { abi, bytecode: `0x${bytecode}` };
}
const FACTORY_ARTIFACT = uniswapArtifact('@uniswap/v2-core/build/UniswapV2Factory.json');
const FACTORY = new Interface(FACTORY_ARTIFACT.abi);
/**
 * The `@uniswap/v2-periphery` build, whose pair address derivation carries the init-code hash of
 * the `@uniswap/v2-core` pair the factory creates (mainnet's): it finds the factory's pairs.
 */
const ROUTER_ARTIFACT = uniswapArtifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
const PAIR = new Interface([
  'function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 timestamp)',
  'function mint(address to) returns (uint256 liquidity)',
]);
const ERC20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function mint(address to, uint256 amount)',
]);
const WETH9 = new Interface(['function deposit() payable']);

const lower = (address: string) => address.toLowerCase() as Address;

export async function deployPools(setup: PoolSetup): Promise<DevnetLiquidity> {
  const { factory, router } =
    setup.chainId === DEVNET_CHAIN_ID ? await deployUniswap(setup) : await placeUniswap(setup);
  const bySymbol = new Map([setup.weth, ...setup.tokens].map((t) => [t.symbol, t.address]));
  const pools: DevnetPool[] = [];
  // One after another: the deployer sends every transaction.
  for (const { symbols, amounts } of POOLS) {
    const tokens = symbols.map((symbol) => {
      const address = bySymbol.get(symbol);
      if (address === undefined) throw new Error(`the devnet has no token ${symbol} for a pool`);
      return address;
    });
    const targets = new Map(tokens.map((token, i) => [token, parseUnits(amounts[i]!, 18)]));
    pools.push(await deployPool(setup, factory, targets));
  }
  return { factory, router, pools };
}

async function hasCode(provider: JsonRpcProvider, address: string): Promise<boolean> {
  return (await provider.getCode(address)) !== '0x';
}

async function deployUniswap(setup: PoolSetup): Promise<UniswapV2Deployment> {
  const factory = await deployFactory(setup);
  return { factory, router: await deployRouter(setup, factory) };
}

/**
 * The factory's only constructor-set storage, its `feeToSetter`, stays zero there: nobody can
 * switch the protocol fee on, which changes no price.
 */
async function placeUniswap(setup: PoolSetup): Promise<UniswapV2Deployment> {
  const [deployment] = networkByChainId(setup.chainId)?.uniswapV2 ?? [];
  if (deployment === undefined)
    throw new Error(`chain ${setup.chainId} is no network with a Uniswap V2 deployment`);
  const { factory, router } = deployment;
  await placeRuntimeCode(setup.provider, FACTORY_ARTIFACT, [setup.deployer], factory);
  await placeRuntimeCode(setup.provider, ROUTER_ARTIFACT, [factory, setup.weth.address], router);
  return deployment;
}

function deployFactory(setup: PoolSetup): Promise<Address> {
  const feeToSetter = AbiCoder.defaultAbiCoder().encode(['address'], [setup.deployer]);
  return deployAt(setup, {
    what: 'the Uniswap V2 factory',
    salt: FACTORY_SALT,
    initCode: concat([FACTORY_ARTIFACT.bytecode, feeToSetter]),
    expected: DEVNET_UNISWAP_V2_FACTORY,
  });
}

function deployRouter(setup: PoolSetup, factory: Address): Promise<Address> {
  const args = AbiCoder.defaultAbiCoder().encode(
    ['address', 'address'],
    [factory, setup.weth.address],
  );
  return deployAt(setup, {
    what: 'the Uniswap V2 router',
    salt: ROUTER_SALT,
    initCode: concat([ROUTER_ARTIFACT.bytecode, args]),
    expected: DEVNET_UNISWAP_V2_ROUTER,
  });
}

/** Creates `initCode` through the deterministic-deployment proxy, once, at `expected`. */
async function deployAt(
  setup: PoolSetup,
  contract: { what: string; salt: string; initCode: string; expected: Address },
): Promise<Address> {
  const { provider, deployer, create2Proxy } = setup;
  const { what, salt, initCode, expected } = contract;
  const address = lower(getCreate2Address(create2Proxy, salt, keccak256(initCode)));
  if (address !== expected)
    throw new Error(
      `${what} would land at ${address}, not at the devnet's ${expected} ` +
        `(src/domain/networks.ts): has its bytecode or the deployer changed?`,
    );
  if (await hasCode(provider, address)) return address;
  await setup.send({ from: deployer, to: create2Proxy, data: concat([salt, initCode]) });
  if (!(await hasCode(provider, address)))
    throw new Error(`the deployment through ${create2Proxy} did not create ${address}`);
  return address;
}

/** The pair of the two tokens in `targets`, holding the target amounts as its reserves. */
async function deployPool(
  setup: PoolSetup,
  factoryAddress: Address,
  targets: ReadonlyMap<Address, bigint>,
): Promise<DevnetPool> {
  const { provider, deployer, send } = setup;
  const [first, second] = [...targets.keys()] as [Address, Address];
  const [token0, token1] = sortTokens(first, second);
  const factory = new Contract(factoryAddress, FACTORY, provider);
  const getPair = async () => lower(await factory.getFunction('getPair')(token0, token1));

  let address = await getPair();
  if (address === ZeroAddress) {
    const data = FACTORY.encodeFunctionData('createPair', [token0, token1]);
    await send({ from: deployer, to: factoryAddress, data });
    address = await getPair();
  }
  const pair = new Contract(address, PAIR, provider);
  const [reserve0, reserve1] = (await pair.getFunction('getReserves')()) as bigint[];
  if (reserve0! > 0n && reserve1! > 0n) return { token0, token1, address };

  for (const [token, target] of targets) {
    const held: bigint = await new Contract(token, ERC20, provider).getFunction('balanceOf')(
      address,
    );
    if (held >= target) continue;
    const missing = target - held;
    if (token === setup.weth.address) {
      const deposit = WETH9.encodeFunctionData('deposit');
      await send({ from: deployer, to: token, data: deposit, value: missing });
      const data = ERC20.encodeFunctionData('transfer', [address, missing]);
      await send({ from: deployer, to: token, data });
    } else {
      const data = ERC20.encodeFunctionData('mint', [address, missing]);
      await send({ from: deployer, to: token, data });
    }
  }
  await send({ from: deployer, to: address, data: PAIR.encodeFunctionData('mint', [deployer]) });
  return { token0, token1, address };
}
