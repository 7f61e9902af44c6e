/**
 * What the operating system says of another process, and how to stop one: for the servers a
 * crashed batchbook left running in its data directory. On Linux this reads /proc; elsewhere a
 * process's arguments and start are unknown (null), so callers never signal one on a guess.
 */
import { readFile } from 'node:fs/promises';

/** Whether `pid` names a process that has not exited (a zombie has: it only awaits its reaping). */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, but belongs to another user (PostgreSQL runs as `postgres` under root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = await readStat(pid);
  return stat === null || stat.state !== 'Z';
}

/** The process's command line, or null when it is gone or this system does not tell. */
export async function processArguments(pid: number): Promise<string[] | null> {
  const raw = await readFile(`/proc/${pid}/cmdline`).catch(() => null);
  if (raw === null || raw.length === 0) return null;
  const args = raw.toString('utf8').split('\0');
  if (args.at(-1) === '') args.pop();
  return args;
}

/**
 * When the process started, as a token that differs for any two processes that ever held the
 * same pid (this boot's id and the start in clock ticks); null when this system does not tell.
 */
export async function processStart(pid: number): Promise<string | null> {
  const [bootId, stat] = await Promise.all([
    readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => null),
    readStat(pid),
  ]);
  return bootId === null || stat === null ? null : `${bootId.trim()}:${stat.startTicks}`;
}

export interface StopStep {
  signal: NodeJS.Signals;
  /** How long the process has to exit after this signal before the next step. */
  waitMs: number;
}

/** Signals `pid` step by step until it exits; false when it outlived every step. */
export async function stopProcess(pid: number, steps: readonly StopStep[]): Promise<boolean> {
  for (const { signal, waitMs } of steps) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
      throw error;
    }
    if (await exited(pid, waitMs)) return true;
  }
  return false;
}

const EXIT_POLL_MS = 50;

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    if (!(await isRunning(pid))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, EXIT_POLL_MS));
  }
}

/** Fields of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses. */
async function readStat(pid: number): Promise<{ state: string; startTicks: string } | null> {
  const raw = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (raw === null) return null;
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, starttime field 22.
  const [state, startTicks] = [fields[0], fields[19]];
  return state === undefined || startTicks === undefined ? null : { state, startTicks };
}
