import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { GENERATED } from '../../scripts/schema-types/generate.js';

const ROOT = new URL('../../', import.meta.url);

describe('the types generated from the JSON Schemas', () => {
  for (const file of GENERATED) {
    it(`${file.path} is what the schemas generate now (npm run generate:schema-types)`, async () => {
      const written = readFileSync(new URL(file.path, ROOT), 'utf8');
      expect(written === (await file.text()), `${file.path} is stale`).to.equal(true);
    });
  }
});
