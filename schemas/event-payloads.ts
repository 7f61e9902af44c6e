/**
 * Event payload validators (DESIGN §4), compiled with ajv from `events/`: one JSON Schema
 * (2020-12) per event type and version, `<Type>.v<N>.schema.json`, for every version a ledger
 * may hold. Current versions guard appends (src/ledger/checked-payloads.ts); older ones say what
 * the upcasters (src/domain/upcast.ts) may be handed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describeSchemaError } from './validators.js';

// ajv-formats is CommonJS with `export default`: under NodeNext the default import is the module.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const FOLDER = new URL('./events/', import.meta.url);
const FILE = /^([A-Za-z]+)\.v([1-9][0-9]*)\.schema\.json$/;

const ajv = new Ajv2020({ allErrors: false, strict: true });
addFormats(ajv, ['date-time', 'uuid']);

/** Every (type, version) with a schema: type → versions, ascending. */
export const EVENT_SCHEMA_VERSIONS = new Map<string, number[]>();

for (const file of readdirSync(FOLDER).sort()) {
  if (!file.endsWith('.schema.json')) continue;
  ajv.addSchema(JSON.parse(readFileSync(new URL(file, FOLDER), 'utf8')) as object);
  const named = FILE.exec(file);
  if (!named) continue;
  const versions = EVENT_SCHEMA_VERSIONS.get(named[1]!) ?? [];
  versions.push(Number(named[2]));
  EVENT_SCHEMA_VERSIONS.set(
    named[1]!,
    versions.sort((a, b) => a - b),
  );
}
// Compiled now: a schema ajv cannot compile fails the start, not the first append it checks.
for (const [type, versions] of EVENT_SCHEMA_VERSIONS) {
  for (const version of versions) ajv.getSchema(`events/${type}.v${version}`);
}

/**
 * Why `data` is not a valid payload of `type` at `version` (the first problem, naming its field),
 * or null when it is. A type or version without a schema is a problem too.
 */
export function eventPayloadProblem(type: string, version: number, data: unknown): string | null {
  if (!EVENT_SCHEMA_VERSIONS.get(type)?.includes(version)) {
    return `no schema for ${type} v${version}`;
  }
  const validate = ajv.getSchema(`events/${type}.v${version}`)!;
  return validate(data) ? null : describeSchemaError(validate);
}
