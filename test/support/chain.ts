/**
 * A devnet for tests: a private anvil on a free port, in memory only, with the devnet deployed
 * on it. `sharedTestChain` gives one per test run (started lazily, stopped by the root hook);
 * suites that change it isolate themselves with snapshot/revert.
 */
import { Interface, MaxUint256, toQuantity, type JsonRpcProvider } from 'ethers';
import type { Address } from '../../src/domain/events.js';
import { DEVNET_CHAIN_ID, startAnvil } from '../../src/chain/devnet/anvil.js';
import { deployDevnet, type DevnetDeployment } from '../../src/chain/devnet/deploy.js';
import { devnetProvider, sendFromNode } from '../../src/chain/devnet/node-client.js';
import { erc20MinterArtifact, weth9Artifact } from '../../src/chain/devnet/artifacts.js';

export interface FundOptions {
  /** The owner's allowance to the vault relayer afterwards; default max. */
  approve?: bigint;
}

export interface TestChain {
  rpcUrl: string;
  deployment: DevnetDeployment;
  provider: JsonRpcProvider;
  /**
   * Gives `owner` ETH for gas and `amount` of a demo token or WETH (minted or deposited), and
   * sets its allowance to the vault relayer. Addresses in any case.
   */
  fund(owner: Address, token: Address, amount: bigint, options?: FundOptions): Promise<void>;
  /** Sets `owner`'s allowance to the vault relayer. */
  approve(owner: Address, token: Address, amount: bigint): Promise<void>;
  snapshot(): Promise<string>;
  /** Reverts to a snapshot, which anvil then forgets: take a new one to revert again. */
  revert(id: string): Promise<void>;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

const GAS_MONEY = 10n ** 18n;
const lower = (address: string) => address.toLowerCase() as Address;
const ERC20 = new Interface(erc20MinterArtifact().abi);
const WETH9 = new Interface(weth9Artifact().abi);

/** `chainId` 1 gives a local chain that the service (and the SDK) take for mainnet. */
export async function startTestChain(chainId = DEVNET_CHAIN_ID): Promise<TestChain> {
  const anvil = await startAnvil({ port: 0, stateFile: null, chainId });
  const provider = devnetProvider(anvil.rpcUrl, chainId);
  try {
    const deployment = await deployDevnet(anvil.rpcUrl, chainId);
    // Any address may then send: tests act as owners they only know the address of.
    await provider.send('anvil_autoImpersonateAccount', [true]);
    return testChain(deployment, provider, () => anvil.stop());
  } catch (error) {
    provider.destroy();
    await anvil.stop();
    throw error;
  }
}

/**
 * A running devnet (e.g. the one a service launched) seen as a test chain, for funding owners.
 * Stopping it only closes the connection.
 */
export async function connectTestChain(deployment: DevnetDeployment): Promise<TestChain> {
  const provider = devnetProvider(deployment.rpcUrl, deployment.chainId);
  await provider.send('anvil_autoImpersonateAccount', [true]);
  return testChain(deployment, provider, async () => undefined);
}

function testChain(
  deployment: DevnetDeployment,
  provider: JsonRpcProvider,
  stopAnvil: () => Promise<void>,
): TestChain {
  const { weth, vaultRelayer } = deployment;
  const demoTokens = new Set(deployment.tokens.map((t) => t.address));

  const approve = async (owner: Address, token: Address, amount: bigint) => {
    const data = ERC20.encodeFunctionData('approve', [vaultRelayer, amount]);
    await sendFromNode(provider, { from: owner, to: token, data });
  };

  return {
    rpcUrl: deployment.rpcUrl,
    deployment,
    provider,
    async fund(owner, token, amount, { approve: allowance = MaxUint256 } = {}) {
      const tokenAddress = lower(token);
      const wrapping = tokenAddress === weth.address;
      if (!wrapping && !demoTokens.has(tokenAddress))
        throw new Error(`${token} is neither WETH nor a demo token of the devnet`);
      const balance = await provider.getBalance(owner);
      const topUp = balance + GAS_MONEY + (wrapping ? amount : 0n);
      await provider.send('anvil_setBalance', [owner, toQuantity(topUp)]);
      if (wrapping) {
        const data = WETH9.encodeFunctionData('deposit');
        await sendFromNode(provider, { from: owner, to: token, data, value: amount });
      } else {
        const data = ERC20.encodeFunctionData('mint', [owner, amount]);
        await sendFromNode(provider, { from: deployment.deployer.address, to: token, data });
      }
      await approve(owner, token, allowance);
    },
    approve,
    snapshot: () => provider.send('evm_snapshot', []),
    async revert(id) {
      if (!(await provider.send('evm_revert', [id])))
        throw new Error(`anvil has no snapshot ${id}`);
    },
    async mine(blocks = 1) {
      await provider.send('anvil_mine', [toQuantity(blocks)]);
    },
    async stop() {
      provider.destroy();
      await stopAnvil();
    },
  };
}

const shared = new Map<number, Promise<TestChain>>();

/** The test run's chain with this id (default the devnet's), started on first use. */
export function sharedTestChain(chainId = DEVNET_CHAIN_ID): Promise<TestChain> {
  let chain = shared.get(chainId);
  if (!chain) shared.set(chainId, (chain = startTestChain(chainId)));
  return chain;
}

export async function stopSharedTestChains(): Promise<void> {
  const starting = [...shared.values()];
  shared.clear();
  // A chain that failed to start already failed the suite that asked for it.
  const chains = await Promise.all(starting.map((c) => c.catch(() => null)));
  await Promise.all(chains.map((chain) => chain?.stop()));
}
