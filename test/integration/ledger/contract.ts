/**
 * The ledger contract (DESIGN.md §3), run against every adapter. Tests share one ledger per
 * suite and never assume it is empty: stream names carry a random run id, and all-stream reads
 * start from a marker appended by the test itself.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  WrongExpectedRevisionError,
  type ExpectedRevision,
  type Ledger,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
} from '../../../src/ledger/port.js';
import { waitFor } from '../../support/wait.js';

export interface LedgerUnderTest {
  ledger: Ledger;
  /** Closes the ledger and whatever the factory opened for it. */
  close(): Promise<void>;
}

export function event(type = 'Tested', data: Record<string, unknown> = {}): NewEvent {
  return { id: randomUUID(), type, version: 1, data, metadata: { by: 'contract' } };
}

/** Collects a subscription's events in the background. */
export function collect(subscription: Subscription): {
  events: RecordedEvent[];
  done: Promise<void>;
} {
  const events: RecordedEvent[] = [];
  const done = (async () => {
    for await (const recorded of subscription) events.push(recorded);
  })();
  return { events, done };
}

/** Every event after `after` whose stream starts with `prefix`, paging through the all-stream. */
export async function readAllAfter(
  ledger: Ledger,
  after: string,
  prefix: string,
  batch = 500,
): Promise<RecordedEvent[]> {
  const found: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await ledger.readAll(cursor, batch);
    if (page.length === 0) return found;
    found.push(...page.filter((recorded) => recorded.stream.startsWith(prefix)));
    cursor = page.at(-1)!.position;
  }
}

async function expectConflict(attempt: Promise<unknown>, actual: bigint): Promise<void> {
  const error = await attempt.then(
    () => expect.fail('append should have failed with WrongExpectedRevisionError'),
    (thrown: unknown) => thrown,
  );
  expect(error).to.be.instanceOf(WrongExpectedRevisionError);
  expect((error as WrongExpectedRevisionError).actual).to.equal(actual);
}

const ids = (events: readonly { id: string }[]) => events.map((recorded) => recorded.id);

export function ledgerContract(name: string, makeLedger: () => Promise<LedgerUnderTest>): void {
  describe(`${name}: ledger contract`, function () {
    let subject: LedgerUnderTest;
    let ledger: Ledger;
    const run = randomUUID().slice(0, 8);
    let counter = 0;
    /** A stream name no other test (or earlier run against the same server) uses. */
    const fresh = (label = 's') => `${label}-${run}-${++counter}`;
    /** A checkpoint at the current end of the all-stream. */
    const mark = async () =>
      (await ledger.append(fresh('mark'), [event('Mark')], 'noStream')).position;

    before(async function () {
      subject = await makeLedger();
      ledger = subject.ledger;
    });

    after(async () => {
      await subject?.close();
    });

    describe('expected revision', () => {
      it('noStream creates a stream and conflicts once it exists', async () => {
        const stream = fresh();
        const first = await ledger.append(stream, [event(), event()], 'noStream');
        expect(first).to.include({ nextRevision: 1n, written: true });
        await expectConflict(ledger.append(stream, [event()], 'noStream'), 1n);
      });

      it('any appends to new and existing streams', async () => {
        const stream = fresh();
        expect((await ledger.append(stream, [event()], 'any')).nextRevision).to.equal(0n);
        expect((await ledger.append(stream, [event()], 'any')).nextRevision).to.equal(1n);
      });

      it('streamExists conflicts on a new stream and appends to an existing one', async () => {
        const stream = fresh();
        await expectConflict(ledger.append(stream, [event()], 'streamExists'), -1n);
        expect(await ledger.readStream(stream)).to.deep.equal([]);
        await ledger.append(stream, [event()], 'noStream');
        const result = await ledger.append(stream, [event()], 'streamExists');
        expect(result.nextRevision).to.equal(1n);
      });

      it('an exact revision must be the revision of the last event', async () => {
        const stream = fresh();
        await expectConflict(ledger.append(stream, [event()], 0n), -1n);
        await ledger.append(stream, [event(), event(), event()], 'noStream');
        await expectConflict(ledger.append(stream, [event()], 1n), 2n);
        await expectConflict(ledger.append(stream, [event()], 3n), 2n);
        const result = await ledger.append(stream, [event(), event()], 2n);
        expect(result).to.include({ nextRevision: 4n, written: true });
        expect(await ledger.readStream(stream)).to.have.length(5);
      });

      it('a conflict writes nothing', async () => {
        const stream = fresh();
        const first = event();
        await ledger.append(stream, [first], 'noStream');
        await expectConflict(ledger.append(stream, [event(), event()], 5n), 0n);
        expect(ids(await ledger.readStream(stream))).to.deep.equal([first.id]);
      });

      it('of two concurrent appends expecting the same revision, exactly one wins', async () => {
        const stream = fresh();
        const others = Array.from({ length: 20 }, () => fresh('other'));
        const contenders = [event(), event()];
        const results = await Promise.allSettled([
          ...contenders.map((contender) => ledger.append(stream, [contender], 'noStream')),
          ...others.map((other) => ledger.append(other, [event()], 'noStream')),
        ]);
        const [a, b, ...rest] = results;
        expect([a!.status, b!.status].sort()).to.deep.equal(['fulfilled', 'rejected']);
        const loser = [a, b].find(
          (result) => result!.status === 'rejected',
        ) as PromiseRejectedResult;
        expect(loser.reason).to.be.instanceOf(WrongExpectedRevisionError);
        expect(rest.every((result) => result.status === 'fulfilled')).to.equal(true);
        expect(await ledger.readStream(stream)).to.have.length(1);
      });
    });

    describe('idempotence by event id', () => {
      it('appending the same events again succeeds without writing them twice', async () => {
        const stream = fresh();
        const events = [event(), event()];
        const first = await ledger.append(stream, events, 'noStream');
        const again = await ledger.append(stream, events, 'noStream');
        expect(again).to.deep.equal({ ...first, written: false });
        const later = await ledger.append(stream, [events[0]!], 7n);
        expect(later).to.include({ nextRevision: 1n, written: false });
        expect(ids(await ledger.readStream(stream))).to.deep.equal(ids(events));
      });

      it('reports the stream as it is now when old events are retried', async () => {
        const stream = fresh();
        const old = event();
        const first = await ledger.append(stream, [old], 'noStream');
        await ledger.append(stream, [event()], 0n);
        const retried = await ledger.append(stream, [old], 'noStream');
        expect(retried).to.deep.equal({
          nextRevision: 1n,
          position: first.position,
          written: false,
        });
      });

      it('a mixed batch writes only the events not yet in the stream', async () => {
        const stream = fresh();
        const [a, b, c] = [event(), event(), event()];
        await ledger.append(stream, [a!], 'noStream');
        const result = await ledger.append(stream, [a!, b!, c!], 0n);
        expect(result).to.include({ nextRevision: 2n, written: true });
        const stored = await ledger.readStream(stream);
        expect(ids(stored)).to.deep.equal(ids([a!, b!, c!]));
        expect(stored.map((recorded) => recorded.revision)).to.deep.equal([0n, 1n, 2n]);
        expect(result.position).to.equal(stored[2]!.position);
        const withAny = await ledger.append(stream, [c!, event()], 'any');
        expect(withAny).to.include({ nextRevision: 3n, written: true });
      });

      it('the same id in another stream is another event', async () => {
        const shared = event();
        await ledger.append(fresh(), [shared], 'noStream');
        const other = fresh();
        const result = await ledger.append(other, [shared], 'noStream');
        expect(result.written).to.equal(true);
        expect(ids(await ledger.readStream(other))).to.deep.equal([shared.id]);
      });
    });

    describe('readStream', () => {
      it('returns every field of every event in revision order', async () => {
        const stream = fresh();
        const events: NewEvent[] = [
          { id: randomUUID(), type: 'First', version: 2, data: { amount: '1', nested: [1, 'x'] } },
          {
            id: randomUUID(),
            type: 'Second',
            version: 1,
            data: { text: 'ünïcødé' },
            metadata: { a: 1 },
          },
        ];
        const before = Date.now();
        const { position } = await ledger.append(stream, events, 'noStream');
        const stored = await ledger.readStream(stream);
        expect(stored.map(({ position: _p, recordedAt: _r, ...rest }) => rest)).to.deep.equal([
          { ...events[0], stream, revision: 0n, metadata: {} },
          { ...events[1], stream, revision: 1n },
        ]);
        expect(stored[1]!.position).to.equal(position);
        expect(ledger.comparePositions(stored[0]!.position, stored[1]!.position)).to.be.below(0);
        for (const recorded of stored) {
          expect(recorded.recordedAt).to.be.instanceOf(Date);
          expect(recorded.recordedAt.getTime()).to.be.within(before - 60_000, Date.now() + 60_000);
        }
      });

      it('returns [] for a stream that does not exist', async () => {
        expect(await ledger.readStream(fresh('missing'))).to.deep.equal([]);
      });
    });

    describe('readAll', () => {
      it('gives every event once, in one total order across streams, and the same order again', async () => {
        const start = await mark();
        const prefix = fresh('total');
        const [a, b] = [`${prefix}-a`, `${prefix}-b`];
        const appended: NewEvent[] = [];
        const write = async (stream: string, count: number) => {
          const events = Array.from({ length: count }, () => event());
          await ledger.append(stream, events, 'any');
          appended.push(...events);
        };
        await write(a, 2);
        await write(b, 1);
        await write(a, 3);
        await write(b, 2);

        const read = await readAllAfter(ledger, start, prefix);
        expect(ids(read)).to.deep.equal(ids(appended));
        for (let i = 1; i < read.length; i++) {
          expect(ledger.comparePositions(read[i - 1]!.position, read[i]!.position)).to.be.below(0);
        }
        expect(read.filter((r) => r.stream === a).map((r) => r.revision)).to.deep.equal([
          0n,
          1n,
          2n,
          3n,
          4n,
        ]);
        expect(await readAllAfter(ledger, start, prefix)).to.deep.equal(read);
      });

      it('pages strictly after the given position', async () => {
        const start = await mark();
        const prefix = fresh('paging');
        for (let i = 0; i < 5; i++) {
          await ledger.append(`${prefix}-${i % 2}`, [event(), event(), event()], 'any');
        }
        const whole = await readAllAfter(ledger, start, prefix);
        expect(whole).to.have.length(15);

        const paged: RecordedEvent[] = [];
        let cursor = start;
        for (;;) {
          const page = await ledger.readAll(cursor, 4);
          expect(page.length).to.be.at.most(4);
          if (page.length === 0) break;
          expect(ledger.comparePositions(page[0]!.position, cursor)).to.be.above(0);
          paged.push(...page.filter((recorded) => recorded.stream.startsWith(prefix)));
          cursor = page.at(-1)!.position;
        }
        expect(paged).to.deep.equal(whole);
        const rest = await ledger.readAll(whole[9]!.position, 100);
        expect(ids(rest.filter((recorded) => recorded.stream.startsWith(prefix)))).to.deep.equal(
          ids(whole.slice(10)),
        );
      });
    });

    describe('backlog', () => {
      it('counts the events after a position, up to the cap, and dates the first of them', async () => {
        const start = await mark();
        expect(await ledger.backlog(start, 10)).to.deep.equal({ events: 0, oldest: null });
        const prefix = fresh('backlog');
        await ledger.append(`${prefix}-a`, [event(), event()], 'noStream');
        await ledger.append(`${prefix}-b`, [event()], 'noStream');
        const [first] = await ledger.readAll(start, 1);
        const whole = await ledger.backlog(start, 10);
        expect(whole.events).to.equal(3);
        expect(whole.oldest?.getTime()).to.equal(first!.recordedAt.getTime());
        expect((await ledger.backlog(start, 2)).events).to.equal(2);
        const [, , last] = await readAllAfter(ledger, start, prefix);
        expect(await ledger.backlog(last!.position, 10)).to.deep.equal({ events: 0, oldest: null });
      });

      it('from no position counts from the first event', async () => {
        await mark();
        const backlog = await ledger.backlog(null, 1);
        expect(backlog.events).to.equal(1);
        expect(backlog.oldest).to.be.instanceOf(Date);
      });
    });

    describe('subscribe', () => {
      it('catches up from the start, then delivers live events', async () => {
        const prefix = fresh('catchup');
        const early = [event(), event()];
        await ledger.append(`${prefix}-a`, early, 'noStream');
        const subscription = ledger.subscribe(null, { streamPrefixes: [prefix] });
        const received = collect(subscription);
        try {
          await waitFor(() => received.events.length === 2, { description: 'catch-up' });
          const live = [event(), event(), event()];
          await ledger.append(`${prefix}-b`, live.slice(0, 1), 'noStream');
          await ledger.append(`${prefix}-a`, live.slice(1), 1n);
          await waitFor(() => received.events.length === 5, { description: 'live events' });
          expect(ids(received.events)).to.deep.equal(ids([...early, ...live]));
        } finally {
          await subscription.close();
          await received.done;
        }
      });

      it('resumes after a checkpoint with exactly the events that follow it', async () => {
        const start = await mark();
        const prefix = fresh('resume');
        const events = Array.from({ length: 10 }, () => event());
        for (const [i, recorded] of events.entries()) {
          await ledger.append(`${prefix}-${i % 3}`, [recorded], 'any');
        }
        const all = await readAllAfter(ledger, start, prefix);
        expect(ids(all)).to.deep.equal(ids(events));
        const checkpoint = all[3]!.position;

        const subscription = ledger.subscribe(checkpoint, { streamPrefixes: [prefix] });
        const received = collect(subscription);
        try {
          await waitFor(() => received.events.length >= all.length - 4, {
            description: 'the rest',
          });
          const later = event();
          await ledger.append(`${prefix}-0`, [later], 'any');
          await waitFor(() => received.events.length >= all.length - 3, {
            description: 'live event',
          });
          expect(ids(received.events)).to.deep.equal([...ids(all.slice(4)), later.id]);
        } finally {
          await subscription.close();
          await received.done;
        }
      });

      it('delivers only streams with the given prefixes', async () => {
        const prefix = fresh('filter');
        const subscription = ledger.subscribe(null, {
          streamPrefixes: [`${prefix}-order-`, `${prefix}-auction-`],
        });
        const received = collect(subscription);
        try {
          const wanted: NewEvent[] = [];
          for (const kind of ['order', 'other', 'auction', 'orde', 'order']) {
            const one = event();
            await ledger.append(`${prefix}-${kind}-${randomUUID()}`, [one], 'noStream');
            if (kind === 'order' || kind === 'auction') wanted.push(one);
          }
          await waitFor(() => received.events.length >= wanted.length, {
            description: 'filtered events',
          });
          expect(ids(received.events)).to.deep.equal(ids(wanted));
        } finally {
          await subscription.close();
          await received.done;
        }
      });

      it('ends iteration on close, with a next() pending', async () => {
        const subscription = ledger.subscribe(null, { streamPrefixes: [fresh('nothing')] });
        const iterator = subscription[Symbol.asyncIterator]();
        const pending = iterator.next();
        await subscription.close();
        expect(await pending).to.deep.equal({ done: true, value: undefined });
      });

      it('gets every event exactly once, in readAll order, while 16 writers append', async function () {
        this.timeout(30_000);
        const start = await mark();
        const prefix = fresh('busy');
        const subscription = ledger.subscribe(start, { streamPrefixes: [prefix] });
        const received = collect(subscription);
        const shared = Array.from({ length: 4 }, (_, i) => `${prefix}-shared-${i}`);
        let appended = 0;

        /** Appends to a shared stream at its exact revision, retrying after a conflict. */
        const appendShared = async (stream: string, events: NewEvent[]) => {
          for (;;) {
            const current = await ledger.readStream(stream);
            const expected: ExpectedRevision =
              current.length === 0 ? 'noStream' : BigInt(current.length - 1);
            try {
              return await ledger.append(stream, events, expected);
            } catch (error) {
              if (!(error instanceof WrongExpectedRevisionError)) throw error;
            }
          }
        };
        const writer = async (w: number) => {
          for (let i = 0; i < 100; i++) {
            const events = Array.from({ length: 1 + (i % 3 === 0 ? 1 : 0) }, () => event());
            if (i % 5 === 0) await appendShared(shared[(w + i) % shared.length]!, events);
            else await ledger.append(`${prefix}-own-${w}-${i}`, events, 'noStream');
            appended += events.length;
          }
        };
        try {
          await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
          await waitFor(() => received.events.length >= appended, {
            timeoutMs: 15_000,
            description: `${appended} events`,
          });
          const read = await readAllAfter(ledger, start, prefix, 1000);
          expect(read).to.have.length(appended);
          expect(new Set(ids(received.events)).size).to.equal(appended);
          expect(ids(received.events)).to.deep.equal(ids(read));
          for (const stream of shared) {
            const revisions = read.filter((r) => r.stream === stream).map((r) => r.revision);
            expect(revisions).to.deep.equal(revisions.map((_, i) => BigInt(i)));
          }
        } finally {
          await subscription.close();
          await received.done;
        }
      });
    });

    it('property: any interleaving of appends reads back in an order consistent with every stream', async function () {
      this.timeout(30_000);
      const step = fc.array(
        fc.record({
          stream: fc.integer({ min: 0, max: 3 }),
          count: fc.integer({ min: 1, max: 3 }),
        }),
        { minLength: 1, maxLength: 4 },
      );
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
          const start = await mark();
          const prefix = fresh('prop');
          const rounds: string[][] = [];
          // Appends within a step run concurrently; steps run one after another.
          for (const appends of steps) {
            const round = await Promise.all(
              appends.map(async ({ stream, count }) => {
                const events = Array.from({ length: count }, () => event());
                await ledger.append(`${prefix}-${stream}`, events, 'any');
                return ids(events);
              }),
            );
            rounds.push(round.flat());
          }
          const read = await readAllAfter(ledger, start, prefix);
          expect(read).to.have.length(rounds.flat().length);
          // Every step's events come after the previous step's, in some order.
          let offset = 0;
          for (const round of rounds) {
            const slice = ids(read.slice(offset, offset + round.length));
            expect([...slice].sort()).to.deep.equal([...round].sort());
            offset += round.length;
          }
          // Within each stream, all-stream order is revision order, without gaps.
          for (let s = 0; s < 4; s++) {
            const revisions = read
              .filter((r) => r.stream === `${prefix}-${s}`)
              .map((r) => r.revision);
            expect(revisions).to.deep.equal(revisions.map((_, i) => BigInt(i)));
          }
        }),
        { numRuns: 12 },
      );
    });
  });
}
