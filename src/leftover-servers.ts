/**
 * The servers a crashed batchbook left running in its data directory: the embedded PostgreSQL
 * (found by the cluster's own `postmaster.pid`) and the devnet's anvil (by the pid file it is
 * started with). Once this process holds the directory's claim (src/data-dir-claim.ts), a live
 * one of them has no owner: it is stopped as an orderly stop would, so the start can go on. A
 * process is stopped only when its command line shows it is that server of this very directory;
 * a pid file naming any other process is stale (its pid was reused) and is removed.
 */
import { readFile, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { devnetFiles } from './chain/devnet/devnet.js';
import { embeddedClusterDir } from './postgres/database.js';
import { isRunning, processArguments, stopProcess, type StopStep } from './process-table.js';
import { StartupError } from './startup-error.js';

interface Leftover {
  name: string;
  pidFile: string;
  /** Whether a command line is this server of this data directory. */
  isIt(args: readonly string[]): boolean;
  /** The orderly stop first, then harder ones. */
  stop: readonly StopStep[];
}

export async function stopLeftoverServers(dataDir: string, logger: Logger): Promise<void> {
  // Run by root from a folder the server's account cannot enter, the cluster lies elsewhere,
  // linked from here: its server was started with the real path.
  const cluster = await realpath(embeddedClusterDir(dataDir)).catch(() =>
    embeddedClusterDir(dataDir),
  );
  const devnet = devnetFiles(dataDir);
  const leftovers: Leftover[] = [
    {
      name: 'PostgreSQL',
      pidFile: path.join(cluster, 'postmaster.pid'),
      isIt: (args) => path.basename(args[0] ?? '') === 'postgres' && follows(args, '-D', cluster),
      // Fast shutdown (what an orderly stop sends), then immediate, then none at all.
      stop: [
        { signal: 'SIGINT', waitMs: 30_000 },
        { signal: 'SIGQUIT', waitMs: 5_000 },
        { signal: 'SIGKILL', waitMs: 5_000 },
      ],
    },
    {
      name: 'anvil',
      pidFile: devnet.pidFile,
      isIt: (args) =>
        path.basename(args[0] ?? '') === 'anvil' && follows(args, '--state', devnet.stateFile),
      // anvil writes its state on SIGTERM.
      stop: [
        { signal: 'SIGTERM', waitMs: 10_000 },
        { signal: 'SIGKILL', waitMs: 5_000 },
      ],
    },
  ];
  for (const leftover of leftovers) await stopLeftover(leftover, logger);
}

async function stopLeftover(leftover: Leftover, logger: Logger): Promise<void> {
  const pid = await pidIn(leftover.pidFile);
  if (pid === null || !(await isRunning(pid))) return;
  const args = await processArguments(pid);
  if (args === null) {
    throw new StartupError(
      `${leftover.name} (pid ${pid}, named in ${leftover.pidFile}) may have been left running by an earlier batchbook, and this system does not tell what that process is: stop it if it is, remove the file if not, and start again`,
    );
  }
  if (!leftover.isIt(args)) {
    logger.info(
      { pidFile: leftover.pidFile, pid },
      'removing a stale pid file: its pid was reused',
    );
    await unlink(leftover.pidFile).catch(() => undefined);
    return;
  }
  logger.warn(
    { server: leftover.name, pid },
    'stopping a server an earlier batchbook left running in this data directory',
  );
  if (!(await stopProcess(pid, leftover.stop))) {
    throw new StartupError(
      `${leftover.name} (pid ${pid}), left running by an earlier batchbook, would not stop: stop it by hand and start again`,
    );
  }
}

/** The pid on a pid file's first line (PostgreSQL's holds more lines after it). */
async function pidIn(file: string): Promise<number | null> {
  const raw = await readFile(file, 'utf8').catch(() => null);
  const pid = Number(raw?.split('\n', 1)[0]?.trim());
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function follows(args: readonly string[], flag: string, value: string): boolean {
  return args.some((arg, i) => arg === flag && args[i + 1] === value);
}
