/**
 * The test suites' view of the process table (Linux's /proc): who started whom, what a process
 * runs, and signalling processes that may have exited meanwhile.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { isRunning } from '../../src/process-table.js';
import { waitFor } from './wait.js';

/** The postmaster's pid: the first line of `postmaster.pid` in the data directory. */
export async function postmasterPid(dataDir: string): Promise<number> {
  const pid = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${dataDir}`);
  return pid;
}

/** The pids whose parent is `parent`, from `/proc/<pid>/stat` (its 4th field, after the name). */
export async function childrenOf(parent: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (stat === null) continue; // the process has exited meanwhile
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) children.push(Number(entry));
  }
  return children;
}

/** The command line of `pid`, joined by spaces ('' once it is gone). */
export async function commandOf(pid: number): Promise<string> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return raw.split('\0').join(' ').trim();
}

/** Sends `signal` to `pid`; a process that has exited meanwhile is left alone. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Resolves once none of `pids` runs. */
export async function gone(pids: readonly number[], timeoutMs: number): Promise<void> {
  await waitFor(async () => (await Promise.all(pids.map(isRunning))).every((up) => !up), {
    timeoutMs,
    intervalMs: 50,
    description: `processes ${pids.join(', ')} to exit`,
  });
}
