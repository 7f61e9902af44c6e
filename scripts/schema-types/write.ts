/** `npm run generate:schema-types`: writes the types generated from the JSON Schemas. */
import { writeFileSync } from 'node:fs';
import { GENERATED } from './generate.js';

const ROOT = new URL('../../', import.meta.url);

for (const file of GENERATED) {
  writeFileSync(new URL(file.path, ROOT), await file.text());
  console.log(`wrote ${file.path}`);
}
