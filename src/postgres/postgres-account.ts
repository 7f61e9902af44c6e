/**
 * PostgreSQL refuses to run as root. Started by root, the embedded server runs as the system
 * account `postgres` instead (created when missing), which must be able to run its programs
 * and to write its cluster. In a checkout other users cannot enter (under `/root`, or any folder
 * of mode 700) it can do neither: the programs then run from a copy in `/var/lib/batchbook`, and
 * a new cluster is made there, the data directory's cluster path a link to it.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  mkdir,
  readdir,
  realpath,
  rm,
  rmdir,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { StartupError } from '../startup-error.js';
import type { ServerPrograms } from './server-programs.js';

export interface Account {
  uid: number;
  gid: number;
}

const NAME = 'postgres';
/** Where the server's files go when the checkout is out of the account's reach. */
export const REACHABLE_PLACE = '/var/lib/batchbook';
/** Written last into a copy of the programs: a copy without it was cut short. */
const COMPLETE = '.complete';

const run = promisify(execFile);

/** The `postgres` account, created (as a system account, no home, no shell) when missing. */
export async function postgresAccount(): Promise<Account> {
  const found = await idsOf(NAME).catch(() => null);
  if (found) return found;
  try {
    await run('groupadd', ['--system', NAME]).catch(async (error: unknown) => {
      // 9: the group exists already (an account removed without its group).
      if ((error as { code?: number }).code !== 9) throw error;
    });
    await run('useradd', [
      '--system',
      '--gid',
      NAME,
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      NAME,
    ]);
  } catch (error) {
    throw new StartupError(
      `PostgreSQL cannot run as root, and the system account "${NAME}" to run it as could not be created (${String(error)}): create it, run as another user, or set DATABASE_URL`,
    );
  }
  return idsOf(NAME);
}

async function idsOf(name: string): Promise<Account> {
  const id = async (flag: string) => Number((await run('id', [flag, name])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

/** Whether `command` exits 0 when the account runs it (false when it cannot even start it). */
function succeedsAs(account: Account, command: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { uid: account.uid, gid: account.gid, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** A folder of `REACHABLE_PLACE`, every folder on the way open to the account. */
async function reachableFolder(...parts: string[]): Promise<string> {
  let folder = REACHABLE_PLACE;
  for (const part of ['', ...parts]) {
    folder = path.join(folder, part);
    await mkdir(folder, { recursive: true });
    await chmod(folder, 0o755);
  }
  return folder;
}

/** The programs where the account can run them: where they are, or a copy of them. */
export async function programsFor(
  account: Account,
  programs: ServerPrograms,
): Promise<ServerPrograms> {
  if (await succeedsAs(account, programs.postgres, ['--version'])) return programs;
  const home = path.join(REACHABLE_PLACE, `postgresql-${programs.version}`);
  if (!existsSync(path.join(home, COMPLETE))) {
    await rm(home, { recursive: true, force: true });
    await reachableFolder();
    await cp(programs.home, home, { recursive: true, verbatimSymlinks: true });
    await writeFile(path.join(home, COMPLETE), '');
  }
  const copied = {
    ...programs,
    home,
    initdb: path.join(home, path.relative(programs.home, programs.initdb)),
    postgres: path.join(home, path.relative(programs.home, programs.postgres)),
  };
  if (!(await succeedsAs(account, copied.postgres, ['--version']))) {
    throw new StartupError(
      `PostgreSQL cannot run as root, and the "${NAME}" account cannot run its programs, even copied to ${home}: set DATABASE_URL`,
    );
  }
  return copied;
}

/**
 * The cluster folder the account will own and can write: `cluster` itself, or (when the account
 * cannot reach it and it holds nothing yet) one in `REACHABLE_PLACE` that `cluster` links to.
 */
export async function clusterFor(account: Account, cluster: string): Promise<string> {
  // A link made by an earlier start leads to the cluster it made.
  const folder = await realpath(cluster).catch(() => cluster);
  await mkdir(folder, { recursive: true });
  await chown(folder, account.uid, account.gid);
  if (await succeedsAs(account, '/bin/sh', ['-c', 'test -w "$0" && test -x "$0"', folder])) {
    return folder;
  }
  if ((await readdir(folder)).length > 0) {
    throw new StartupError(
      `PostgreSQL runs as the "${NAME}" account, which cannot reach ${folder}, and that folder is not empty: give that account access to it, set DATA_DIR to a folder it can reach, or set DATABASE_URL`,
    );
  }
  const key = createHash('sha256').update(path.resolve(cluster)).digest('hex').slice(0, 16);
  const elsewhere = path.join(await reachableFolder('clusters'), key);
  await mkdir(elsewhere, { recursive: true });
  await chown(elsewhere, account.uid, account.gid);
  await rmdir(folder);
  await symlink(elsewhere, folder);
  return elsewhere;
}
