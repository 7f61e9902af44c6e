/**
 * Deploys what a newcomer needs on a bare anvil chain: the real GPv2 contracts at their canonical
 * addresses, CoW Protocol's HooksTrampoline at its canonical address, WETH9 at mainnet's WETH
 * address, a CoWSwapEthFlow where the SDK expects it, demo ERC-20s, funded demo accounts with
 * allowances to the vault relayer, and an allow-listed solver.
 *
 * Idempotent: every step first reads whether it is already done, so against a persisted chain it
 * sends no transaction and mines no block.
 */
import {
  Contract,
  Interface,
  JsonRpcProvider,
  MaxUint256,
  concat,
  encodeBytes32String,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  parseEther,
  parseUnits,
  toQuantity,
} from 'ethers';
import type { Address } from '../../domain/events.js';
import { SETTLEMENT_CONTRACT, VAULT_RELAYER, networkByName } from '../../domain/networks.js';
import { devnetRoles, type DevnetAccount } from './accounts.js';
import { DEVNET_CHAIN_ID } from './anvil.js';
import {
  authenticatorImplementationArtifact,
  authenticatorProxyArtifact,
  erc20MinterArtifact,
  settlementArtifact,
  weth9Artifact,
  type MainnetDeployment,
} from './artifacts.js';
import { sendAs } from './canonical-code.js';
import { placeEthFlow } from './eth-flow.js';
import { placeHooksTrampoline } from './hooks-trampoline.js';
import { devnetProvider, sendFromNode } from './node-client.js';
import { deployPools, type DevnetPool } from './pools.js';

export interface DemoToken {
  symbol: string;
  name: string;
  address: Address;
  decimals: number;
}

export interface DevnetDeployment {
  rpcUrl: string;
  chainId: number;
  settlement: Address;
  authenticator: Address;
  vaultRelayer: Address;
  /** The target of every order's hooks (the devnet network's `hooksTrampoline`). */
  hooksTrampoline: Address;
  /** The eth-flow contract orders selling native ETH are placed through. */
  ethFlow: Address;
  weth: DemoToken;
  /** The demo ERC-20s (WETH not included). */
  tokens: readonly DemoToken[];
  /** Funded with WETH and every demo token, with max allowance to the vault relayer. */
  accounts: readonly DevnetAccount[];
  /** Allow-listed on the authenticator. */
  solver: DevnetAccount;
  /** Deploys the demo tokens and holds their minter role. */
  deployer: DevnetAccount;
  /** The real Uniswap V2 factory and router, at the chain's network's `uniswapV2[0]`. */
  uniswapV2Factory: Address;
  uniswapV2Router: Address;
  /** Its funded pairs: each demo token against WETH, and DUSD/DCOW; no DUSD/DDAI. */
  pools: readonly DevnetPool[];
}

/** Deployed first, by the deployer at nonces 0, 1, 2, in this order. */
const DEMO_TOKENS = [
  { symbol: 'DUSD', name: 'Demo USD' },
  { symbol: 'DCOW', name: 'Demo COW' },
  { symbol: 'DDAI', name: 'Demo DAI' },
] as const;
/** ERC20PresetMinterPauser's, fixed. */
const DEMO_TOKEN_DECIMALS = 18;
const MINTED_PER_ACCOUNT = parseUnits('1000000', DEMO_TOKEN_DECIMALS);
const WETH_PER_ACCOUNT = parseEther('100');

/** Predeployed by anvil; GPv2 was deployed on mainnet through it with this salt. */
const CREATE2_PROXY: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
const GPV2_SALT = encodeBytes32String('Mattresses in Berlin!');

const ERC20 = new Interface(erc20MinterArtifact().abi);
const WETH9 = new Interface(weth9Artifact().abi);
const AUTHENTICATOR = new Interface(authenticatorImplementationArtifact().abi);
const SETTLEMENT = new Interface(settlementArtifact().abi);

/** Deploys on a local anvil; `chainId` other than the devnet's only for tests (see anvil.ts). */
export async function deployDevnet(
  rpcUrl: string,
  expectedChainId = DEVNET_CHAIN_ID,
): Promise<DevnetDeployment> {
  const provider = devnetProvider(rpcUrl, expectedChainId);
  try {
    const chainId = Number(await provider.send('eth_chainId', []));
    if (chainId !== expectedChainId)
      throw new Error(`${rpcUrl} serves chain ${chainId}, not ${expectedChainId}`);
    const { accounts, solver, deployer } = devnetRoles();

    // Before anything else the deployer sends, so the nonces match the token addresses.
    const tokens = await deployDemoTokens(provider, deployer.address);
    await deployCanonical(provider, deployer.address, authenticatorImplementationArtifact());
    const authenticator = await deployCanonical(
      provider,
      deployer.address,
      authenticatorProxyArtifact(),
    );
    const settlement = await deployCanonical(provider, deployer.address, settlementArtifact());
    const vaultRelayer = await checkSettlement(provider, settlement, authenticator);
    const hooksTrampoline = await placeHooksTrampoline(provider, settlement);
    const weth = await placeWeth(provider, deployer.address);
    const ethFlow = await placeEthFlow(provider, settlement, weth.address, vaultRelayer);
    await allowSolver(provider, authenticator, solver.address);
    const owners = accounts.map((a) => a.address);
    await fundAccounts(provider, deployer.address, owners, weth.address, tokens, vaultRelayer);
    // After the funding: the deployer sends both, one transaction at a time.
    const liquidity = await deployPools({
      provider,
      chainId,
      deployer: deployer.address,
      weth,
      tokens,
      send: (tx) => sendFromNode(provider, tx),
      create2Proxy: CREATE2_PROXY,
    });

    return {
      rpcUrl,
      chainId,
      settlement,
      authenticator,
      vaultRelayer,
      hooksTrampoline,
      ethFlow,
      weth,
      tokens,
      accounts,
      solver,
      deployer,
      uniswapV2Factory: liquidity.factory,
      uniswapV2Router: liquidity.router,
      pools: liquidity.pools,
    };
  } finally {
    provider.destroy();
  }
}

const lower = (address: string) => address.toLowerCase() as Address;

async function hasCode(provider: JsonRpcProvider, address: string): Promise<boolean> {
  return (await provider.getCode(address)) !== '0x';
}

async function deployDemoTokens(
  provider: JsonRpcProvider,
  deployer: Address,
): Promise<DemoToken[]> {
  const tokens: DemoToken[] = [];
  for (const [nonce, { symbol, name }] of DEMO_TOKENS.entries()) {
    const address = lower(getCreateAddress({ from: deployer, nonce }));
    tokens.push({ symbol, name, address, decimals: DEMO_TOKEN_DECIMALS });
    if (await hasCode(provider, address)) continue;
    const next = await provider.getTransactionCount(deployer);
    if (next !== nonce)
      throw new Error(
        `devnet deployer ${deployer} is at nonce ${next}, not ${nonce} as deploying ${symbol} ` +
          'needs: the chain state is inconsistent, start the devnet fresh',
      );
    const data = concat([erc20MinterArtifact().bytecode, ERC20.encodeDeploy([name, symbol])]);
    await sendFromNode(provider, { from: deployer, data });
  }
  return tokens;
}

/** CREATE2 through the proxy with the mainnet salt, creation code and constructor arguments. */
async function deployCanonical(
  provider: JsonRpcProvider,
  from: Address,
  artifact: MainnetDeployment,
): Promise<Address> {
  const initCode = concat([
    artifact.bytecode,
    Interface.from(artifact.abi).encodeDeploy(artifact.args),
  ]);
  const address = lower(getCreate2Address(CREATE2_PROXY, GPV2_SALT, keccak256(initCode)));
  if (address !== lower(artifact.address))
    throw new Error(
      `GPv2 contract would land at ${address} instead of its canonical ${artifact.address}: ` +
        'the @cowprotocol/contracts deployment data is not the mainnet one',
    );
  if (await hasCode(provider, address)) return address;
  if (!(await hasCode(provider, CREATE2_PROXY)))
    throw new Error(`no deterministic-deployment proxy at ${CREATE2_PROXY}: is this anvil?`);
  await sendFromNode(provider, { from, to: CREATE2_PROXY, data: concat([GPV2_SALT, initCode]) });
  if (!(await hasCode(provider, address)))
    throw new Error(`the deployment through ${CREATE2_PROXY} did not create ${address}`);
  return address;
}

/** The rest of the stack assumes the canonical addresses (src/domain/networks.ts). */
async function checkSettlement(
  provider: JsonRpcProvider,
  settlement: Address,
  authenticator: Address,
): Promise<Address> {
  if (settlement !== SETTLEMENT_CONTRACT)
    throw new Error(`GPv2Settlement is at ${settlement}, expected ${SETTLEMENT_CONTRACT}`);
  const contract = new Contract(settlement, SETTLEMENT, provider);
  const wired = lower(await contract.getFunction('authenticator')());
  if (wired !== authenticator)
    throw new Error(`GPv2Settlement uses authenticator ${wired}, expected ${authenticator}`);
  const vaultRelayer = lower(await contract.getFunction('vaultRelayer')());
  if (vaultRelayer !== VAULT_RELAYER)
    throw new Error(`GPv2VaultRelayer is at ${vaultRelayer}, expected ${VAULT_RELAYER}`);
  return vaultRelayer;
}

/**
 * WETH9 at mainnet's WETH address, so the devnet's wrapped native token reads as mainnet's. It is
 * deployed normally, then its code and its only constructor-set storage (name, symbol and
 * decimals: slots 0–2) are copied to the canonical address.
 */
async function placeWeth(provider: JsonRpcProvider, from: Address): Promise<DemoToken> {
  const address = networkByName('devnet')!.wrappedNativeToken;
  if (!(await hasCode(provider, address))) {
    const source = await sendFromNode(provider, { from, data: weth9Artifact().bytecode });
    if (source === null) throw new Error('the WETH9 deployment created no contract');
    await provider.send('anvil_setCode', [address, await provider.getCode(source)]);
    for (const slot of [0, 1, 2]) {
      const value = await provider.getStorage(source, slot);
      await provider.send('anvil_setStorageAt', [address, toQuantity(slot), value]);
    }
  }
  const weth = new Contract(address, WETH9, provider);
  const [name, symbol, decimals] = await Promise.all(
    ['name', 'symbol', 'decimals'].map((fn) => weth.getFunction(fn)()),
  );
  if (name !== 'Wrapped Ether' || Number(decimals) !== 18)
    throw new Error(`WETH at ${address} reads as ${name} with ${decimals} decimals`);
  return { symbol, name, address, decimals: 18 };
}

/**
 * Only the allow-list manager may add solvers; anvil lets us act as it without its key. It is
 * read from the chain: a fork's manager is whoever the network made it since the deployment.
 */
export async function allowSolver(
  provider: JsonRpcProvider,
  authenticator: Address,
  solver: Address,
): Promise<void> {
  const allowList = new Contract(authenticator, AUTHENTICATOR, provider);
  const isSolver = () => allowList.getFunction('isSolver')(solver);
  if (await isSolver()) return;
  const manager = lower(await allowList.getFunction('manager')());
  const data = AUTHENTICATOR.encodeFunctionData('addSolver', [solver]);
  await sendAs(provider, { from: manager, to: authenticator, data });
  if (!(await isSolver())) throw new Error(`solver ${solver} is not allow-listed after addSolver`);
}

/**
 * An account is set up for a token once: a max allowance is never spent down (both WETH9 and
 * OpenZeppelin skip it), so a zero allowance means the account was never funded with it.
 */
async function fundAccounts(
  provider: JsonRpcProvider,
  deployer: Address,
  owners: readonly Address[],
  weth: Address,
  tokens: readonly DemoToken[],
  vaultRelayer: Address,
): Promise<void> {
  const checks = owners.flatMap((owner) =>
    [weth, ...tokens.map((t) => t.address)].map(async (token) => {
      const erc20 = new Contract(token, ERC20, provider);
      const allowance: bigint = await erc20.getFunction('allowance')(owner, vaultRelayer);
      return allowance === 0n ? [{ owner, token }] : [];
    }),
  );
  const todo = (await Promise.all(checks)).flat();

  // One sequence per sender (anvil assigns each sender's nonces as its transactions arrive);
  // approving before the tokens arrive is fine, so the senders run in parallel.
  const mints = async () => {
    for (const { owner, token } of todo) {
      if (token === weth) continue;
      const data = ERC20.encodeFunctionData('mint', [owner, MINTED_PER_ACCOUNT]);
      await sendFromNode(provider, { from: deployer, to: token, data });
    }
  };
  const approvals = async (owner: Address) => {
    for (const entry of todo) {
      if (entry.owner !== owner) continue;
      if (entry.token === weth) {
        const data = WETH9.encodeFunctionData('deposit');
        await sendFromNode(provider, { from: owner, to: weth, data, value: WETH_PER_ACCOUNT });
      }
      const data = ERC20.encodeFunctionData('approve', [vaultRelayer, MaxUint256]);
      await sendFromNode(provider, { from: owner, to: entry.token, data });
    }
  };
  await Promise.all([mints(), ...owners.map(approvals)]);
}
