/**
 * A test database with every projector running on it, shared by one read-model suite: opened and
 * started before its tests, stopped and closed after them, with the queries the suite checks.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { allProjectors } from '../../../projections/index.js';
import { startProjections, type ProjectionEngine } from '../../../projections/runner.js';
import type { EventPayloads, EventType } from '../../../src/domain/events.js';
import { suiteResource } from '../../support/suite-resource.js';
import { append, openTestDatabase, projectionDeps, type TestDatabase } from './fixtures.js';

export interface ProjectedDatabase<Queries> {
  database: () => TestDatabase;
  engine: () => ProjectionEngine;
  queries: () => Queries;
  /** Appends one event and waits until each projector the suite reads has applied it. */
  project<T extends EventType>(type: T, data: EventPayloads[T]): Promise<void>;
}

export function suiteProjectedDatabase<Queries>(
  projectorsRead: readonly string[],
  queriesOn: (db: Knex) => Queries,
): ProjectedDatabase<Queries> {
  const opened = suiteResource(
    async () => {
      const database = await openTestDatabase();
      const engine = await startProjections({
        ...projectionDeps(database),
        projectors: allProjectors(),
      }).catch(async (err: unknown) => {
        await database.close();
        throw err;
      });
      return { database, engine, queries: queriesOn(database.db) };
    },
    async ({ database, engine }) => {
      await engine.stop();
      await database.close();
    },
  );
  return {
    database: () => opened().database,
    engine: () => opened().engine,
    queries: () => opened().queries,
    project: async (type, data) => {
      const position = await append(opened().database.ledger, type, data);
      for (const name of projectorsRead) {
        expect(await opened().engine.waitFor(name, position, 5000), name).to.equal(true);
      }
    },
  };
}
