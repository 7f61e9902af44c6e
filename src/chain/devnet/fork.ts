/**
 * Fork mode: the embedded anvil as a fork of another node's network (`FORK_URL`), which keeps
 * that network's chain id, its GPv2 deployment, eth-flow contract and liquidity. batchbook
 * serves it under the network's own name, so apps that know only real chain ids use it. On top
 * of the fork, once: the devnet's solver account is allow-listed (impersonating the network's
 * allow-list manager) to send settlements, and the demo accounts (anvil's, funded with ETH on
 * any fork) wrap ETH into the network's wrapped native token and approve the vault relayer.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Contract, Interface, MaxUint256, parseEther, type JsonRpcProvider } from 'ethers';
import type { Address } from '../../domain/events.js';
import { networkByChainId, type Network } from '../../domain/networks.js';
import { startAnvil } from './anvil.js';
import { settlementArtifact, weth9Artifact } from './artifacts.js';
import { devnetDemoAccounts, devnetSolver } from './accounts.js';
import { allowSolver } from './deploy.js';
import { devnetProvider, sendFromNode } from './node-client.js';

export interface ForkOptions {
  url: string;
  block: number | null;
  /** 0 picks a free port. */
  port: number;
  pidFile: string;
}

export interface Fork {
  rpcUrl: string;
  network: Network;
  stop(): Promise<void>;
}

/** The node to fork does not answer, or serves a chain batchbook does not know. */
export class ForkUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ForkUnavailable';
  }
}

const SETTLEMENT = new Interface(settlementArtifact().abi);
const WETH9 = new Interface(weth9Artifact().abi);
/** What each demo account wraps on a fork. */
const WRAPPED_PER_ACCOUNT = parseEther('100');
const ASK_TIMEOUT_MS = 10_000;

/** The chain id `url` serves, asked once with a deadline. */
async function upstreamChainId(url: string): Promise<number> {
  let answer: { result?: string; error?: { message: string } };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    answer = (await response.json()) as typeof answer;
  } catch (error) {
    throw new ForkUnavailable(`does not answer eth_chainId: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof answer.result !== 'string')
    throw new ForkUnavailable(`answers eth_chainId with ${JSON.stringify(answer.error ?? answer)}`);
  return Number(answer.result);
}

export async function startFork(options: ForkOptions): Promise<Fork> {
  await mkdir(path.dirname(options.pidFile), { recursive: true });
  const chainId = await upstreamChainId(options.url);
  const network = networkByChainId(chainId);
  if (!network || network.name === 'devnet')
    throw new ForkUnavailable(`serves chain ${chainId}, which is none of batchbook's networks`);
  const anvil = await startAnvil({
    port: options.port,
    stateFile: null,
    chainId,
    fork: { url: options.url, block: options.block },
    pidFile: options.pidFile,
  });
  const provider = devnetProvider(anvil.rpcUrl, chainId);
  try {
    await prepareFork(provider, network);
  } catch (error) {
    await anvil.stop();
    throw error;
  } finally {
    provider.destroy();
  }
  return { rpcUrl: anvil.rpcUrl, network, stop: () => anvil.stop() };
}

async function prepareFork(provider: JsonRpcProvider, network: Network): Promise<void> {
  const settlement = new Contract(network.settlementContract, SETTLEMENT, provider);
  const authenticator = (await settlement.getFunction('authenticator')()).toLowerCase() as Address;
  await allowSolver(provider, authenticator, devnetSolver().address);
  const weth = network.wrappedNativeToken;
  const wrapped = new Contract(weth, WETH9, provider);
  for (const { address } of devnetDemoAccounts()) {
    if ((await wrapped.getFunction('allowance')(address, network.vaultRelayer)) === MaxUint256)
      continue;
    const deposit = WETH9.encodeFunctionData('deposit');
    await sendFromNode(provider, {
      from: address,
      to: weth,
      data: deposit,
      value: WRAPPED_PER_ACCOUNT,
    });
    const approve = WETH9.encodeFunctionData('approve', [network.vaultRelayer, MaxUint256]);
    await sendFromNode(provider, { from: address, to: weth, data: approve });
  }
}
