import { expect } from 'chai';
import { appDataProjector } from '../../../projections/app-data/projector.js';
import type { Projector } from '../../../projections/projector.js';
import { startProjections, type ProjectionEngine } from '../../../projections/runner.js';
import { appDataHash, ZERO_APP_DATA_HASH } from '../../../src/domain/app-data.js';
import { createAppDataQueries } from '../../../src/queries/app-data.js';
import {
  append,
  appDataRegistered,
  openTestDatabase,
  orderPlaced,
  projectionDeps,
  type TestDatabase,
} from './fixtures.js';
import { suiteProjectedDatabase } from './projected-database.js';

describe('app-data read model', () => {
  const { project, queries: appData } = suiteProjectedDatabase(['app-data'], createAppDataQueries);

  it('stores documents registered through PUT /app_data, per network', async () => {
    const doc = '{"appCode":"registered"}';
    await project('AppDataRegistered', appDataRegistered('mainnet', appDataHash(doc), doc));
    expect(await appData().byHash('mainnet', appDataHash(doc))).to.equal(doc);
    expect(await appData().byHash('gnosis', appDataHash(doc))).to.equal(null);
  });

  it('stores the document an order brings', async () => {
    const doc = '{"appCode":"from an order"}';
    const placed = orderPlaced(1, {
      fullAppData: doc,
      order: { ...orderPlaced(1).order, appData: appDataHash(doc) },
    });
    await project('OrderPlaced', placed);
    expect(await appData().byHash('mainnet', appDataHash(doc))).to.equal(doc);
  });

  it('keeps the first document stored under a hash', async () => {
    const hash = appDataHash('{"first":true}');
    await project('AppDataRegistered', appDataRegistered('mainnet', hash, '{"first":true}'));
    await project('AppDataRegistered', appDataRegistered('mainnet', hash, '{"second":true}'));
    expect(await appData().byHash('mainnet', hash)).to.equal('{"first":true}');
  });

  it('does not store the reserved zero hash, nor orders that bring only a hash', async () => {
    await project(
      'OrderPlaced',
      orderPlaced(2, {
        fullAppData: '{}',
        order: { ...orderPlaced(2).order, appData: ZERO_APP_DATA_HASH },
      }),
    );
    await project('OrderPlaced', orderPlaced(3, { fullAppData: null }));
    expect(await appData().byHash('mainnet', ZERO_APP_DATA_HASH)).to.equal(null);
    expect(await appData().byHash('mainnet', orderPlaced(3).order.appData)).to.equal(null);
  });
});

describe('app-data projector: documents it has stored', () => {
  let t: TestDatabase;
  const engines: ProjectionEngine[] = [];

  beforeEach(async () => {
    t = await openTestDatabase();
  });

  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop()));
    await t.close();
  });

  /** A fresh app-data projector (as in a new process) whose batches are recorded. */
  async function start(handled: string[]): Promise<ProjectionEngine> {
    const inner = appDataProjector();
    const recorded: Projector = {
      ...inner,
      async handle(trx, events, schema) {
        handled.push(...events.map((e) => e.position));
        await inner.handle(trx, events, schema);
      },
    };
    const engine = await startProjections({ ...projectionDeps(t), projectors: [recorded] });
    engines.push(engine);
    return engine;
  }

  const bringing = (n: number, doc: string) =>
    orderPlaced(n, {
      fullAppData: doc,
      order: { ...orderPlaced(n).order, appData: appDataHash(doc) },
    });

  it('opens no batch for an order bringing a document it has stored, until it starts afresh', async () => {
    const handled: string[] = [];
    const first = await start(handled);
    const positions: string[] = [];
    for (const [n, doc] of [
      [1, '{"app":"a"}'],
      [2, '{"app":"a"}'],
      [3, '{"app":"b"}'],
    ] as const) {
      positions.push(await append(t.ledger, 'OrderPlaced', bringing(n, doc)));
      expect(await first.waitFor('app-data', positions.at(-1)!, 5000)).to.equal(true);
    }
    expect(handled).to.deep.equal([positions[0], positions[2]]);

    // A new process remembers nothing: the same document is applied again, and the first stays.
    await first.stop();
    handled.length = 0;
    const second = await start(handled);
    const again = await append(t.ledger, 'OrderPlaced', bringing(4, '{"app":"a"}'));
    expect(await second.waitFor('app-data', again, 5000)).to.equal(true);
    expect(handled).to.deep.equal([again]);
    const queries = createAppDataQueries(t.db);
    expect(await queries.byHash('mainnet', appDataHash('{"app":"a"}'))).to.equal('{"app":"a"}');
    expect(await queries.byHash('mainnet', appDataHash('{"app":"b"}'))).to.equal('{"app":"b"}');
  });
});
