import { expect } from 'chai';
import { allProjectors } from '../../../projections/index.js';
import { startProjections, type ProjectionEngine } from '../../../projections/runner.js';
import { appDataHash, ZERO_APP_DATA_HASH } from '../../../src/domain/app-data.js';
import type { EventPayloads, EventType } from '../../../src/domain/events.js';
import { createAppDataQueries, type AppDataQueries } from '../../../src/queries/app-data.js';
import {
  append,
  appDataRegistered,
  openTestDatabase,
  orderPlaced,
  type TestDatabase,
} from './fixtures.js';

describe('app-data read model', () => {
  let t: TestDatabase;
  let engine: ProjectionEngine;
  let appData: AppDataQueries;

  async function project<T extends EventType>(type: T, data: EventPayloads[T]): Promise<void> {
    const position = await append(t.ledger, type, data);
    expect(await engine.waitFor('app-data', position, 5000)).to.equal(true);
  }

  before(async () => {
    t = await openTestDatabase();
    engine = await startProjections({ ledger: t.ledger, db: t.db, projectors: allProjectors() });
    appData = createAppDataQueries(t.db);
  });

  after(async () => {
    await engine?.stop();
    await t?.close();
  });

  it('stores documents registered through PUT /app_data, per network', async () => {
    const doc = '{"appCode":"registered"}';
    await project('AppDataRegistered', appDataRegistered('mainnet', appDataHash(doc), doc));
    expect(await appData.byHash('mainnet', appDataHash(doc))).to.equal(doc);
    expect(await appData.byHash('gnosis', appDataHash(doc))).to.equal(null);
  });

  it('stores the document an order brings', async () => {
    const doc = '{"appCode":"from an order"}';
    const placed = orderPlaced(1, {
      fullAppData: doc,
      order: { ...orderPlaced(1).order, appData: appDataHash(doc) },
    });
    await project('OrderPlaced', placed);
    expect(await appData.byHash('mainnet', appDataHash(doc))).to.equal(doc);
  });

  it('keeps the first document stored under a hash', async () => {
    const hash = appDataHash('{"first":true}');
    await project('AppDataRegistered', appDataRegistered('mainnet', hash, '{"first":true}'));
    await project('AppDataRegistered', appDataRegistered('mainnet', hash, '{"second":true}'));
    expect(await appData.byHash('mainnet', hash)).to.equal('{"first":true}');
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
    expect(await appData.byHash('mainnet', ZERO_APP_DATA_HASH)).to.equal(null);
    expect(await appData.byHash('mainnet', orderPlaced(3).order.appData)).to.equal(null);
  });
});
