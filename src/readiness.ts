/**
 * Whether this instance can serve: its database answers, the projection thread runs and every
 * projector keeps up with the ledger, and each live network's RPC answers and its indexer keeps
 * up with the chain. `/ready` asks for every live network, `/{network}/api/v1/ready` for one.
 *
 * Reasons say what failed in the service's own words, never an error's message: a driver's
 * message can carry a host name or an RPC URL with its key in the path, and readiness needs no
 * key. The message goes to the log instead.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type pg from 'pg';
import type { LiveNetworks } from './chain/live-networks.js';
import type { Config } from './config.js';
import type { ReadinessReport, FailingPart } from './http/deps.js';
import type { Backlog, Ledger } from './ledger/port.js';
import type { ProjectionThreadEngine } from './projection-thread/thread.js';
import { BACKLOG_CAP, backlogSeconds, projectorBacklogs } from './projector-backlogs.js';

export interface ReadinessDeps {
  pool: pg.Pool;
  ledger: Ledger;
  projections: Pick<ProjectionThreadEngine, 'running' | 'checkpoint'>;
  projectors: readonly string[];
  chains: Pick<LiveNetworks, 'names' | 'rpc' | 'indexer'>;
  limits: Config['readiness'];
  logger: Logger;
}

/** One part's verdict: null when it is ready, else why not. */
type Verdict = string | null;

type Probed<T> = { ok: true; value: T } | { ok: false; reason: string };

class TimedOut extends Error {}

/** How long a verdict answers later questions. */
const REUSE_MS = 1_000;

export function createReadiness(deps: ReadinessDeps) {
  const { limits, logger } = deps;

  /** `probe`'s answer within the deadline; its failure is logged and becomes `reason`. */
  const within = async <T>(
    part: string,
    reason: string,
    probe: () => Promise<T>,
  ): Promise<Probed<T>> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut()), limits.timeoutMs);
    });
    try {
      return { ok: true, value: await Promise.race([probe(), deadline]) };
    } catch (err) {
      if (err instanceof TimedOut) {
        return { ok: false, reason: `${reason} within ${limits.timeoutMs} ms` };
      }
      logger.warn({ err, part }, 'readiness check failed');
      return { ok: false, reason };
    } finally {
      clearTimeout(timer);
    }
  };

  const database = async (): Promise<Verdict> => {
    const answer = await within('database', 'PostgreSQL did not answer', () =>
      deps.pool.query('SELECT 1'),
    );
    return answer.ok ? null : answer.reason;
  };

  /** Each projector's verdict. */
  const projectors = async (): Promise<[string, Verdict][]> => {
    const backlogs = projectorBacklogs(deps.ledger, deps.projections, deps.projectors);
    return Promise.all(
      [...backlogs].map(async ([name, backlog]): Promise<[string, Verdict]> => {
        const answer = await within(
          `projector:${name}`,
          'the ledger could not be read',
          () => backlog,
        );
        return [`projector:${name}`, answer.ok ? lagVerdict(answer.value) : answer.reason];
      }),
    );
  };

  const lagVerdict = (backlog: Backlog): Verdict => {
    const seconds = backlogSeconds(backlog, Date.now());
    if (seconds <= limits.maxProjectionLagSeconds) return null;
    const { events } = backlog;
    const count = events === BACKLOG_CAP ? `at least ${events}` : String(events);
    return `${count} event${events === 1 ? '' : 's'} behind, the oldest recorded ${Math.round(seconds)} s ago (at most ${limits.maxProjectionLagSeconds} s)`;
  };

  /** The RPC's verdict and, when it answered, the indexer's. */
  const network = async (name: string): Promise<[string, Verdict][]> => {
    const rpc = deps.chains.rpc(name)!;
    const indexer = deps.chains.indexer(name)!;
    // Asked as the service asks its node: a connection the node closed while idle is tried
    // again, not reported as the node gone.
    const head = await within(`rpc:${name}`, 'the node did not answer', () =>
      rpc.request('block number', (provider) => provider.getBlockNumber()),
    );
    if (!head.ok) {
      return [
        [`rpc:${name}`, head.reason],
        [`indexer:${name}`, 'the chain head is unknown'],
      ];
    }
    const behind = await within(`indexer:${name}`, 'its cursor could not be read', () =>
      indexer.behind(head.value),
    );
    const indexed: Verdict = !behind.ok
      ? behind.reason
      : behind.value === null
        ? 'it has not read the chain yet'
        : behind.value > limits.maxIndexerLagBlocks
          ? `${behind.value} confirmed blocks behind (at most ${limits.maxIndexerLagBlocks})`
          : null;
    return [
      [`rpc:${name}`, null],
      [`indexer:${name}`, indexed],
    ];
  };

  /** The verdict over the service and the live ones among `networks`. */
  const check = async (networks: readonly string[]): Promise<ReadinessReport> => {
    const live = networks.filter((n) => deps.chains.names.has(n));
    const thread: Verdict = deps.projections.running()
      ? null
      : 'the projection thread is starting again';
    const [db, lags, chains] = await Promise.all([
      database(),
      projectors(),
      Promise.all(live.map(network)),
    ]);
    const verdicts: [string, Verdict][] = [
      ['database', db],
      ['projection-thread', thread],
      ...lags,
      ...chains.flat(),
    ];
    const failing: FailingPart[] = verdicts.flatMap(([part, reason]) =>
      reason === null ? [] : [{ part, reason }],
    );
    return { ready: failing.length === 0, failing, checked: verdicts.map(([part]) => part) };
  };

  /**
   * Anyone may ask, as often as they like: a verdict is reused for a moment, and callers asking
   * meanwhile share the one being made, so probes cost the database and the nodes little.
   */
  const recent = new Map<string, { at: number; report: Promise<ReadinessReport> }>();
  return {
    /** Every live network's verdict (null), or one network's. */
    check(network: string | null): Promise<ReadinessReport> {
      const key = network ?? '';
      const last = recent.get(key);
      if (last && performance.now() - last.at < REUSE_MS) return last.report;
      const report = check(network === null ? [...deps.chains.names] : [network]);
      recent.set(key, { at: performance.now(), report });
      // A failed check is not reused.
      report.catch(() => recent.delete(key));
      return report;
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
