/**
 * The store migrations as code: one ordered list of uniquely named steps, and every step that
 * has landed still the SQL it landed with. `landed-migrations.json` holds each step's checksum;
 * a new step adds its line there, and no line ever changes: databases that applied a step
 * will not apply it again, so an edit would reach only new databases.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { checksumOf } from '../../../src/postgres/migrations/apply.js';
import { STORE_MIGRATIONS } from '../../../src/postgres/migrations/steps.js';

const landed = JSON.parse(
  readFileSync(new URL('./landed-migrations.json', import.meta.url), 'utf8'),
) as Record<string, string>;

describe('store migrations', () => {
  it('are numbered V001, V002, … in list order, each named for what it does', () => {
    STORE_MIGRATIONS.forEach((step, i) => {
      expect(step.name).to.match(/^V\d{3}__[a-z0-9]+(_[a-z0-9]+)*$/);
      expect(step.name.slice(1, 4)).to.equal(String(i + 1).padStart(3, '0'));
    });
  });

  it('keep the SQL every landed step landed with', () => {
    const current = Object.fromEntries(
      STORE_MIGRATIONS.map((step) => [step.name, checksumOf(step)]),
    );
    for (const [name, checksum] of Object.entries(landed)) {
      expect(current[name], `landed step ${name}`).to.equal(checksum);
    }
  });

  it('record the checksum of every step in the list', () => {
    const missing = STORE_MIGRATIONS.filter((step) => !(step.name in landed));
    expect(
      missing.map((step) => `"${step.name}": "${checksumOf(step)}"`),
      'lines to add to landed-migrations.json',
    ).to.deep.equal([]);
    expect(Object.keys(landed)).to.deep.equal(STORE_MIGRATIONS.map((step) => step.name));
  });
});
