/**
 * The embedded devnet of `npm start`: anvil with its state persisted in the data directory, and
 * the GPv2 contracts, tokens and demo accounts deployed on it.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { startAnvil } from './anvil.js';
import { deployDevnet, type DevnetDeployment } from './deploy.js';
import type { DevnetPool } from './pools.js';

export interface DevnetOptions {
  dataDir: string;
  /** 0 picks a free port. */
  port: number;
  /** Forget the persisted chain; the caller sets it when the ledger starts empty too. */
  fresh: boolean;
}

export interface Devnet {
  rpcUrl: string;
  deployment: DevnetDeployment;
  stop(): Promise<void>;
}

/** The devnet's files in the data directory: the chain's state, and the pid of its anvil. */
export function devnetFiles(dataDir: string): { stateFile: string; pidFile: string } {
  const dir = path.join(dataDir, 'devnet');
  return { stateFile: path.join(dir, 'state.json'), pidFile: path.join(dir, 'anvil.pid') };
}

export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const { stateFile, pidFile } = devnetFiles(options.dataDir);
  await mkdir(path.dirname(stateFile), { recursive: true });
  if (options.fresh) await rm(stateFile, { force: true });
  const anvil = await startAnvil({ port: options.port, stateFile, pidFile });
  try {
    const deployment = await deployDevnet(anvil.rpcUrl);
    return { rpcUrl: anvil.rpcUrl, deployment, stop: () => anvil.stop() };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** What a newcomer needs to point a wallet or a script at the devnet. */
export function describeDevnet(deployment: DevnetDeployment): string {
  const [first] = deployment.accounts;
  const pad = (label: string) => `  ${label.padEnd(15)}`;
  const symbols = new Map(
    [deployment.weth, ...deployment.tokens].map((t) => [t.address, t.symbol]),
  );
  const pair = (p: DevnetPool) =>
    `${pad(`${symbols.get(p.token0)}/${symbols.get(p.token1)}`)}${p.address}`;
  return [
    'Local devnet (anvil)',
    `${pad('RPC URL')}${deployment.rpcUrl}`,
    `${pad('chain id')}${deployment.chainId}`,
    `${pad('settlement')}${deployment.settlement}`,
    `${pad('vault relayer')}${deployment.vaultRelayer}`,
    `${pad('authenticator')}${deployment.authenticator}`,
    `${pad('trampoline')}${deployment.hooksTrampoline}`,
    `${pad('eth-flow')}${deployment.ethFlow}`,
    'Tokens (the demo accounts hold each and approved the vault relayer for it):',
    ...[deployment.weth, ...deployment.tokens].map(
      (t) => `${pad(t.symbol)}${t.address}  ${t.name}, ${t.decimals} decimals`,
    ),
    'Uniswap V2 (the quotes and native prices come from these pools):',
    `${pad('factory')}${deployment.uniswapV2Factory}`,
    `${pad('router')}${deployment.uniswapV2Router}`,
    ...deployment.pools.map(pair),
    'Demo accounts (anvil’s well-known test keys, never use them on a real chain):',
    ...deployment.accounts.map((a, i) => `${pad(`#${i}`)}${a.address}`),
    ...(first ? [`${pad('#0 key')}${first.privateKey}`] : []),
    `${pad('solver')}${deployment.solver.address}  (allow-listed)`,
  ].join('\n');
}
