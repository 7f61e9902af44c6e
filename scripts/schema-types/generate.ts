/**
 * The TypeScript types of the request bodies and event payloads, generated from their JSON
 * Schemas (json-schema-to-typescript), so that what the code handles and what ajv accepts are
 * one declaration. `npm run generate:schema-types` writes them; a test fails when a schema
 * changed and they were not written again.
 */
import { readFileSync } from 'node:fs';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import prettier from 'prettier';
import { EVENT_VERSIONS } from '../../src/domain/events.js';

const SCHEMAS = new URL('../../schemas/', import.meta.url);

export interface GeneratedFile {
  /** Where the types go, from the repository's root. */
  path: string;
  /** Its text, formatted as the repository's Prettier settings say. */
  text: () => Promise<string>;
}

type Node = JSONSchema | JSONSchema[] | string | number | boolean | null;

/** A schema file: its body, and the schemas it names under `$defs`. */
const read = (file: string): JSONSchema & { $defs?: Record<string, JSONSchema> } =>
  JSON.parse(readFileSync(new URL(file, SCHEMAS), 'utf8')) as JSONSchema;

/**
 * One schema document with every schema it names brought under `$defs`, so that each named
 * schema becomes one named type. `ref` maps a `$ref` of the sources to its name there.
 */
function rewrite(node: Node, ref: (target: string) => string): Node {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, ref)) as JSONSchema[];
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, Node> = {};
  for (const [key, value] of Object.entries(node)) {
    // `unevaluatedProperties` closes an object a `$ref` extends; a generated type is closed already.
    if (key === '$id' || key === 'unevaluatedProperties') continue;
    out[key] = key === '$ref' ? `#/$defs/${ref(value as string)}` : rewrite(value as Node, ref);
  }
  // 2020-12 lets `$ref` sit beside other keywords (both apply); the generator reads it as
  // draft-07 does, where `$ref` replaces them: the same meaning, as the generator understands it.
  // A description beside it stays on the property, not on a copy of the type it names.
  if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    // Its `type` beside it says again what the named schema says.
    const { $ref, description, type: _type, ...rest } = out;
    const parts = Object.keys(rest).length > 0 ? [{ $ref }, rest] : [{ $ref }];
    return { ...(description === undefined ? {} : { description }), allOf: parts } as JSONSchema;
  }
  return out as JSONSchema;
}

/** A definition's name as a type: `nullableAddress` → `NullableAddress`. */
const typeName = (name: string) => name[0]!.toUpperCase() + name.slice(1);

interface Family {
  path: string;
  banner: string;
  /** The definitions file, its `$defs` shared by every document. */
  definitions: string;
  /** Definitions that are a type the code already names (hex strings as template types). */
  named: Readonly<Record<string, string>>;
  /** Type name → schema file. */
  documents: ReadonlyMap<string, string>;
  /** How a document's `$ref` to another document is written: its type name. */
  documentRef: (ref: string) => string | null;
}

async function generate(family: Family): Promise<string> {
  const $defs: Record<string, JSONSchema> = {};
  const SHARED = 'definitions#/$defs/';
  const shared = (ref: string) => (ref.startsWith(SHARED) ? ref.slice(SHARED.length) : null);
  for (const [name, schema] of Object.entries(read(family.definitions).$defs ?? {})) {
    const def = rewrite(schema, (ref) => shared(ref) ?? ref.replace('#/$defs/', '')) as JSONSchema;
    $defs[name] = family.named[name] ? { ...def, tsType: family.named[name] } : def;
  }
  const properties: Record<string, JSONSchema> = {};
  for (const [name, file] of family.documents) {
    const document = read(file);
    const local = (ref: string) => `${name}${typeName(ref.replace('#/$defs/', ''))}`;
    for (const [key, schema] of Object.entries(document.$defs ?? {})) {
      $defs[local(key)] = rewrite(schema, (ref) => shared(ref) ?? local(ref)) as JSONSchema;
    }
    const { $defs: _own, ...body } = document;
    $defs[name] = {
      ...(rewrite(body, (ref) => shared(ref) ?? family.documentRef(ref) ?? local(ref)) as object),
      title: name,
    };
    properties[name] = { $ref: `#/$defs/${name}` };
  }
  const root: JSONSchema = {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    $defs,
  };
  const types = await compile(root, 'Documents', {
    bannerComment: family.banner,
    format: false,
    unknownAny: true,
    // A schema's object is closed where it says so or where its user closes it
    // (`unevaluatedProperties`); open maps say `additionalProperties` themselves.
    additionalProperties: false,
  });
  // The root only gathers the documents; a definition typed as a name the code declares would
  // be declared again as itself, with its comment.
  const named = new Set(Object.values(family.named));
  const text = types
    .replace(/^export interface Documents \{[^}]*\}\n/m, '')
    .replace(/(\/\*\*\n(?: \*.*\n)* \*\/\n)?export type (\w+) = (\w+);?\n/g, (whole, _doc, a, b) =>
      named.has(a) && a === b ? '' : whole,
    );
  // One-line descriptions as one-line comments, as the code beside them writes them.
  const compact = text.replace(/\/\*\*\n(\s*) \* ([^\n]*)\n\s* \*\//g, '/** $2 */');
  const options = await prettier.resolveConfig(family.path);
  return prettier.format(compact, { ...options, parser: 'typescript', filepath: family.path });
}

const EVENT_FILE = /^([A-Za-z]+)\.v([0-9]+)$/;

/** The request bodies' schemas (schemas/requests/), each typed `<Name>Body`. */
const REQUEST_BODIES = [
  'app-data-object',
  'order-cancellation',
  'order-cancellations',
  'order-creation',
  'order-quote',
  'order-uids',
  'subscription-create',
  'subscription-remove',
  'subscription-verify',
];

export const GENERATED: readonly GeneratedFile[] = [
  {
    path: 'schemas/event-payloads.generated.ts',
    text: () =>
      generate({
        path: 'schemas/event-payloads.generated.ts',
        banner: `/* Generated from schemas/events/ by \`npm run generate:schema-types\`: do not edit. */

/** Hex values as the ledger holds them: lowercase 0x-hex (the schemas' patterns say how long). */
export type Hex = \`0x\${string}\`;
export type Address = Hex;
export type OrderUid = Hex;`,
        definitions: 'events/definitions.schema.json',
        named: { address: 'Address', hex: 'Hex', bytes32: 'Hex', orderUid: 'OrderUid' },
        documents: new Map(
          Object.entries(EVENT_VERSIONS).map(([type, version]) => [
            `${type}V${version}`,
            `events/${type}.v${version}.schema.json`,
          ]),
        ),
        documentRef: (ref) => {
          const named = EVENT_FILE.exec(ref);
          return named ? `${named[1]}V${named[2]}` : null;
        },
      }),
  },
  {
    path: 'schemas/request-bodies.generated.ts',
    text: () =>
      generate({
        path: 'schemas/request-bodies.generated.ts',
        banner: `/* Generated from schemas/requests/ by \`npm run generate:schema-types\`: do not edit. */`,
        definitions: 'requests/definitions.schema.json',
        // Bodies are as clients send them: checksummed or not, validated before they are read.
        named: {},
        documents: new Map(
          REQUEST_BODIES.map((file) => [
            `${file.split('-').map(typeName).join('')}Body`,
            `requests/${file}.schema.json`,
          ]),
        ),
        documentRef: () => null,
      }),
  },
];
