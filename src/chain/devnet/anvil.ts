/**
 * Runs anvil, the local EVM node, from its npm package: nothing to install beyond `npm install`.
 * With a state file the chain survives restarts (anvil loads it on start and dumps it every
 * second and on SIGTERM).
 */
import { spawn } from 'node:child_process';
import { unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AnvilOptions {
  /** 0 picks a free port. */
  port: number;
  /** Where the chain persists; null keeps it in memory only. */
  stateFile: string | null;
  /** Default 127.0.0.1: the devnet's keys are public, so it never listens on other interfaces. */
  host?: string;
  /** Default the devnet's 31337; tests also run a local chain that calls itself mainnet (1). */
  chainId?: number;
  /** Runs as a fork of this node's chain (at `block`, default its head). */
  fork?: { url: string; block: number | null };
  /**
   * Holds anvil's pid while it runs: a start after a crash finds and stops the anvil the crashed
   * process left behind (src/leftover-servers.ts).
   */
  pidFile?: string;
}

export interface Anvil {
  rpcUrl: string;
  /** Stops anvil gracefully (it dumps its state), killing it if it does not exit in time. */
  stop(): Promise<void>;
}

export const DEVNET_CHAIN_ID = 31337;

/** Another program listens on the port anvil was given. */
export class AnvilPortInUse extends Error {
  constructor(readonly port: number) {
    super(`port ${port} is in use by another program`);
    this.name = 'AnvilPortInUse';
  }
}

const STOP_DEADLINE_MS = 5_000;
const STDERR_KEPT_CHARS = 8_000;

/** The binary ships in a per-platform package, named as in @foundry-rs/anvil's const.mjs. */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const require = createRequire(import.meta.url);
  let manifest: string;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new Error(
      `anvil is not installed for ${process.platform}/${process.arch}: ${pkg} is missing`,
    );
  }
  const binary = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  return path.join(path.dirname(manifest), 'bin', binary);
}

export async function startAnvil(options: AnvilOptions): Promise<Anvil> {
  const host = options.host ?? '127.0.0.1';
  const args = [
    '--port',
    String(options.port),
    '--host',
    host,
    '--chain-id',
    `${options.chainId ?? DEVNET_CHAIN_ID}`,
  ];
  if (options.stateFile !== null) args.push('--state', options.stateFile, '--state-interval', '1');
  if (options.fork) {
    args.push('--fork-url', options.fork.url);
    if (options.fork.block !== null) args.push('--fork-block-number', `${options.fork.block}`);
  }
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const { pidFile } = options;
  if (pidFile !== undefined && child.pid !== undefined) writeFileSync(pidFile, `${child.pid}\n`);

  // A node left running after we are gone would hold the port and the state file.
  const killOnExit = () => child.kill('SIGTERM');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      process.off('exit', killOnExit);
      if (pidFile !== undefined) forget(pidFile);
      resolve();
    });
  });

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT_CHARS);
  });

  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const onData = (chunk: string) => {
      stdout += chunk;
      const match = /Listening on \S*:(\d+)/.exec(stdout);
      if (!match) return;
      cleanup();
      resolve(Number(match[1]));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(
        /address already in use/i.test(stderr)
          ? new AnvilPortInUse(options.port)
          : new Error(
              `anvil exited before listening (${signal ?? `code ${code}`}): ${stderr.trim()}`,
            ),
      );
    };
    const onError = (error: Error) => {
      cleanup();
      process.off('exit', killOnExit);
      reject(new Error(`anvil could not be started: ${error.message}`));
    };
    const cleanup = () => {
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  // anvil logs every RPC method it serves; drain the pipe so it never blocks on a full buffer.
  child.stdout.resume();

  return {
    rpcUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

function forget(pidFile: string): void {
  try {
    unlinkSync(pidFile);
  } catch {
    // Already gone: nothing to forget.
  }
}
