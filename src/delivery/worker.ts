/**
 * The delivery worker: takes due rows from the outbox and delivers each through its channel,
 * with retries and exponential backoff, at least once.
 *
 * Rows are independent, and grouped by destination (a webhook's origin, a push service, the
 * SMTP relay, the Bot API; see outbox.ts). Each destination runs at most `perDestination`
 * attempts at once, each bounded by its own deadline (`timeoutMs`), and the worker holds at
 * most `2 × perDestination` of its rows (the next ones wait their turn in memory, so the
 * database round trip of a claim overlaps the attempts); a claim passes over destinations at
 * that limit. So a receiver that is down fails its own rows quickly, one that hangs holds a
 * bounded share of the worker until its deadlines, and neither delays another destination's
 * rows; nor does any of it touch the projectors, which only insert rows.
 *
 * The loop claims every `pollIntervalMs`, and sooner after a claim that took all it could (more
 * may be due): as soon as enough attempts finished. Outcomes are written in batches. Several
 * workers (in several instances) may run at once: claims are leases (see outbox.ts). The lease
 * outlasts a row's wait behind its destination's attempts plus its own attempt.
 *
 * `stop()` stops claiming, puts back the rows not started yet, lets attempts in flight finish
 * for up to `stopGraceMs`, then aborts the rest and puts their rows back too (due at once, no
 * attempt counted); if even that write fails, the lease runs out and another worker takes them.
 * Nothing is lost across a restart.
 *
 * Webhooks and push endpoints are the subscribers' choice: each attempt first checks where
 * their host resolves and connects only to public addresses, unless the configuration allows
 * private ones (destination.ts); a refused destination fails its row at once.
 *
 * A row carries a notice or a new subscription's verification request (channel.ts). A webhook
 * that answers its challenge is reported to `verified`, which records it in the ledger before
 * the row counts as delivered: a failure there retries the row like any other.
 *
 * Claimed rows spend their account's and destination's budgets first (budgets.ts); a row over
 * one fails at once. If the budgets cannot be counted (the database is away), the rows are put
 * back, due at once.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { NotificationsConfig } from '../config.js';
import { backoffDelayMs } from './backoff.js';
import { forgetSpentBudgets, spendBudgets } from './budgets.js';
import type { ChallengeRequest } from '../subscriptions/destination-verification.js';
import { createAttempts, Stopped } from './attempt.js';
import { DeliveryError, describeError, type ChannelKind } from './channel.js';
import { closeChannels, createChannels, type Clients } from './configured-channels.js';
import { systemResolver, type Resolver } from './destination.js';
import { createHttpClient } from './http.js';
import { createOutcomeBatches } from './outcome-batches.js';
import { claimDue, type Outcome, type ClaimedDelivery } from './outbox.js';

export interface DeliveryWorkerOptions {
  db: Knex;
  config: Pick<NotificationsConfig, 'delivery' | 'email' | 'webPush' | 'telegram'>;
  logger: Logger;
  /** Rows the worker holds (attempting, waiting their turn, being recorded) at most. Default 128. */
  concurrency?: number;
  /** Attempts in flight per destination at most. Default 16. */
  perDestination?: number;
  /** Deadline of one attempt, every channel. Default `config.delivery.webhookTimeoutMs`. */
  timeoutMs?: number;
  /** How long a claim keeps a row from other workers. Default 3 × timeoutMs + 10 s. */
  leaseMs?: number;
  /** How long `stop()` lets attempts in flight finish before aborting them. Default 1 s. */
  stopGraceMs?: number;
  /** Jitter source of the backoff. Default Math.random. */
  random?: () => number;
  /** Resolves subscribers' host names before their addresses are checked. Default: the system's. */
  resolve?: Resolver;
  /** Records that a webhook answered its challenge (SubscriptionVerified). */
  verified(request: ChallengeRequest): Promise<void>;
  /** Told how each attempt ended. Default: nobody. */
  observer?: DeliveryObserver;
}

/** An attempt's end: `delivered`, failed with attempts left (`retrying`), or given up (`failed`). */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface DeliveryObserver {
  attempted(channel: ChannelKind, outcome: DeliveryOutcome): void;
}

export interface DeliveryWorker {
  stop(): Promise<void>;
}

/** One destination's rows held by this worker. */
interface Lane {
  attempting: number;
  waiting: ClaimedDelivery[];
}

export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, logger: log } = options;
  const { delivery } = options.config;
  const concurrency = options.concurrency ?? 128;
  const perDestination = options.perDestination ?? 16;
  /** Rows held per destination at most: those attempting and as many waiting. */
  const heldPerDestination = 2 * perDestination;
  const timeoutMs = options.timeoutMs ?? delivery.webhookTimeoutMs;
  // A row waits behind at most one round of its destination's attempts, then makes its own.
  const leaseMs = options.leaseMs ?? 3 * timeoutMs + 10_000;
  const stopGraceMs = options.stopGraceMs ?? 1000;
  const random = options.random ?? Math.random;
  const clients: Clients = {
    subscribers: createHttpClient({
      allowPrivateAddresses: delivery.allowPrivateAddresses,
      resolve: options.resolve ?? systemResolver,
    }),
    operator: createHttpClient(),
  };
  const channels = createChannels(options.config, timeoutMs, clients);
  const { attempt, abortAll } = createAttempts({ channels, timeoutMs, verified: options.verified });
  const policy = { baseMs: delivery.backoffBaseMs, maxMs: delivery.backoffMaxMs };

  let stopped = false;
  const lanes = new Map<string, Lane>();
  /** Rows claimed and not yet recorded. */
  let held = 0;
  const running = new Set<Promise<void>>();
  /** Attempts finished since the last claim; the loop claims again once enough did. */
  let finished = 0;
  let refillAt = Infinity;
  let wake: (() => void) | null = null;

  const outcomes = createOutcomeBatches(db, delivery.maxAttempts, log);

  const keyOf = (row: ClaimedDelivery) => ({
    noticeId: row.noticeId,
    subscriptionId: row.subscriptionId,
  });

  const deliveryOutcome = (row: ClaimedDelivery, outcome: Outcome): DeliveryOutcome => {
    if (outcome.kind === 'delivered') return 'delivered';
    const given = outcome.kind === 'failed' && outcome.permanent;
    return given || row.attempts + 1 >= delivery.maxAttempts ? 'failed' : 'retrying';
  };

  const outcomeOf = (row: ClaimedDelivery, error: unknown): Outcome => {
    if (error instanceof Stopped) return { ...keyOf(row), kind: 'released' };
    const message = describeError(error);
    const permanent = error instanceof DeliveryError && error.permanent;
    const attempts = row.attempts + 1;
    const retryAfter = error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0;
    const retryInMs = Math.max(backoffDelayMs(attempts, policy, random()), retryAfter);
    const final = permanent || attempts >= delivery.maxAttempts;
    log.warn(
      {
        noticeId: row.noticeId,
        subscriptionId: row.subscriptionId,
        channel: row.channel.kind,
        attempts,
        error: message,
        ...(final ? { failed: true } : { retryInMs }),
      },
      final ? 'delivery failed; giving up' : 'delivery failed; will retry',
    );
    return { ...keyOf(row), kind: 'failed', error: message, retryInMs, permanent };
  };

  /** Records `outcome` and lets go of the row. */
  const settle = (row: ClaimedDelivery, outcome: Outcome) => {
    if (outcome.kind !== 'released') {
      options.observer?.attempted(row.channel.kind, deliveryOutcome(row, outcome));
    }
    const task = outcomes
      .record(outcome)
      .catch((error: unknown) =>
        log.warn({ err: error, noticeId: row.noticeId }, 'recording a delivery failed'),
      )
      .finally(() => {
        held -= 1;
        running.delete(task);
        if (finished >= refillAt) wake?.();
      });
    running.add(task);
  };

  /** Starts the destination's waiting rows while it has attempts to spare. */
  const pump = (destination: string, lane: Lane) => {
    while (lane.attempting < perDestination && lane.waiting.length > 0) {
      const row = lane.waiting.shift()!;
      if (stopped) {
        settle(row, { ...keyOf(row), kind: 'released' });
        continue;
      }
      lane.attempting += 1;
      const task = (async () => {
        let outcome: Outcome;
        try {
          await attempt(row);
          outcome = { ...keyOf(row), kind: 'delivered' };
        } catch (error) {
          outcome = outcomeOf(row, error);
        }
        return outcome;
      })().then((outcome) => {
        lane.attempting -= 1;
        running.delete(task);
        finished += 1;
        settle(row, outcome);
        pump(destination, lane);
      });
      running.add(task);
    }
    if (lane.attempting === 0 && lane.waiting.length === 0) lanes.delete(destination);
  };

  /** Rows over a budget fail at once; the others go to their destinations' lanes. */
  let forgottenAt = 0;
  const admit = async (rows: ClaimedDelivery[]) => {
    let over: Map<ClaimedDelivery, string>;
    try {
      over = await spendBudgets(db, rows, delivery.budgets);
    } catch (error) {
      log.warn(
        { err: error, rows: rows.length },
        'counting delivery budgets failed; rows put back',
      );
      for (const row of rows) {
        held += 1;
        settle(row, { ...keyOf(row), kind: 'released' });
      }
      return;
    }
    for (const [row, error] of over) {
      held += 1;
      log.warn({ noticeId: row.noticeId, subscriptionId: row.subscriptionId, error }, 'not sent');
      settle(row, { ...keyOf(row), kind: 'failed', error, retryInMs: 0, permanent: true });
    }
    take(rows.filter((row) => !over.has(row)));
    if (Date.now() - forgottenAt > 3_600_000) {
      forgottenAt = Date.now();
      await forgetSpentBudgets(db).catch((error: unknown) =>
        log.warn({ err: error }, 'forgetting past delivery budgets failed'),
      );
    }
  };

  const take = (rows: ClaimedDelivery[]) => {
    const touched = new Map<string, Lane>();
    for (const row of rows) {
      held += 1;
      let lane = lanes.get(row.destination);
      if (!lane) lanes.set(row.destination, (lane = { attempting: 0, waiting: [] }));
      lane.waiting.push(row);
      touched.set(row.destination, lane);
    }
    for (const [destination, lane] of touched) pump(destination, lane);
  };

  const heldByDestination = () =>
    new Map([...lanes].map(([key, lane]) => [key, lane.attempting + lane.waiting.length]));

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const run = async () => {
    while (!stopped) {
      refillAt = Infinity;
      finished = 0;
      let full = true;
      const free = concurrency - held;
      if (free > 0) {
        try {
          const busy = heldByDestination();
          const rows = await claimDue(db, {
            limit: free,
            leaseMs,
            perDestination: heldPerDestination,
            busy,
          });
          await admit(rows);
          const saturated = [...heldByDestination().values()].some((n) => n >= heldPerDestination);
          full = rows.length === free || (rows.length > 0 && saturated);
        } catch (error) {
          full = false;
          if (!stopped) log.warn({ err: error }, 'claiming deliveries failed; retrying');
        }
      }
      if (stopped) break;
      if (full) {
        // More may be due: claim again once half a destination's worth of attempts finished,
        // or the interval passed, whichever comes first.
        refillAt = Math.max(1, Math.floor(Math.min(concurrency, perDestination) / 2));
        if (finished >= refillAt) continue;
      }
      await pause(delivery.pollIntervalMs);
    }
  };

  const loop = run();
  let stopping: Promise<void> | null = null;
  const shutDown = async () => {
    stopped = true;
    wake?.();
    await loop;
    // Rows waiting their turn go back at once.
    for (const [destination, lane] of lanes) pump(destination, lane);
    if (running.size > 0) {
      const grace = setTimeout(abortAll, stopGraceMs);
      while (running.size > 0) await Promise.all([...running]);
      clearTimeout(grace);
    }
    await outcomes.written();
    await closeChannels(channels, clients);
  };
  return {
    stop: () => (stopping ??= shutDown()),
  };
}
