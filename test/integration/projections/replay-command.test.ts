import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { allProjectors } from '../../../projections/index.js';
import { startProjections } from '../../../projections/runner.js';
import {
  append,
  suiteTestDatabase,
  orderPlaced,
  projectionDeps,
  tableContents,
  tradeSettled,
} from './fixtures.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

describe('npm run replay (scripts/replay.ts)', () => {
  const database = suiteTestDatabase();

  it('rebuilds the live read models from the ledger and swaps them in', async () => {
    let last = '';
    for (let n = 0; n < 10; n++) {
      const placed = orderPlaced(n);
      await append(database().ledger, 'OrderPlaced', placed);
      last = await append(
        database().ledger,
        'TradeSettled',
        tradeSettled(placed, { sell: 5n, buy: 1n }, n),
      );
    }
    const engine = await startProjections({
      ...projectionDeps(database()),
      projectors: allProjectors(),
    });
    try {
      for (const { name } of allProjectors()) {
        expect(await engine.waitFor(name, last, 10_000), name).to.equal(true);
      }
    } finally {
      await engine.stop();
    }
    const live = await tableContents(database().db, 'read', 'orders');
    // A read model that went wrong, which only a rebuild from the ledger puts right.
    await database().db.raw("UPDATE read.orders SET kind = 'tampered'");

    // Only what the command needs: the database; no terminal, so no progress bar redraws.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/replay.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: database().url,
      },
      timeout: 60_000,
    });

    expect(stdout).to.contain('rebuilt orders, app-data, trades, auctions, notices from 20 events');
    expect(stdout).to.contain('swapped into schema "read"');
    expect(await tableContents(database().db, 'read', 'orders')).to.deep.equal(live);
  });
});
