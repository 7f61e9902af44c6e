/**
 * Writes the reference's operations and schemas as batchbook serves them
 * (test/support/reference-openapi.ts reads ../shared/reference/cow-openapi.yml) into
 * src/http/openapi/reference.json, which the served OpenAPI document is built from. Run after the
 * reference spec or the adjustments change: `node --import tsx scripts/generate-openapi-reference.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REFERENCE_API_FILE } from '../src/http/openapi/document.js';
import { referenceApi } from '../test/support/reference-openapi.js';

writeFileSync(REFERENCE_API_FILE, `${JSON.stringify(referenceApi(), null, 2)}\n`);
console.log(`wrote ${fileURLToPath(REFERENCE_API_FILE)}`);
