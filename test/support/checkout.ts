/** A copy of this checkout elsewhere, as a newcomer's clone would hold it. */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The working tree's files a commit would hold: tracked ones and new ones git does not ignore. */
async function repositoryFiles(): Promise<string[]> {
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout.split('\0').filter((file) => file !== '' && existsSync(path.join(REPO_ROOT, file)));
}

/** Copies the repository's files (not `node_modules`) into `folder`. */
export async function copyRepository(folder: string): Promise<void> {
  for (const file of await repositoryFiles()) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), path.join(folder, file));
  }
}
