/**
 * Values from JSON Schemas (the OpenAPI spec's, `$ref`s inlined): `validValue` generates values
 * a schema accepts, `places` lists where its values hold other values, `kindOf` what they are. What the spec does
 * not constrain (a `TokenAmount`'s size, an `AppData` document's content) is generated freely:
 * the service must answer those too.
 */
import fc from 'fast-check';
import type { SchemaObject } from './openapi.js';

const MAX_ITEMS = 3;
const MAX_STRING = 40;

const branchesOf = (schema: SchemaObject): SchemaObject[] | null =>
  ((schema.anyOf ?? schema.oneOf) as SchemaObject[] | undefined) ?? null;

const without = (schema: SchemaObject, ...keys: string[]): SchemaObject =>
  Object.fromEntries(Object.entries(schema).filter(([key]) => !keys.includes(key)));

/** Whether every value of the schema is an object (so `allOf` parts can be merged as values). */
function isObjectSchema(schema: SchemaObject): boolean {
  if (schema.type === 'object' || schema.properties !== undefined) return true;
  const parts = branchesOf(schema) ?? (schema.allOf as SchemaObject[] | undefined);
  return parts !== undefined && parts !== null && parts.every(isObjectSchema);
}

function integerBetween(schema: SchemaObject): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 2 ** 32;
  return fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);
}

function stringOf(schema: SchemaObject): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  if (schema.format === 'uuid') return fc.uuid();
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.max(
    minLength,
    Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : MAX_STRING, MAX_STRING),
  );
  const free = fc.string({ minLength, maxLength });
  return typeof schema.example === 'string' ? fc.oneof(fc.constant(schema.example), free) : free;
}

function objectOf(schema: SchemaObject): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties as Record<string, SchemaObject> | undefined) ?? {};
  const required = (schema.required as string[] | undefined) ?? [];
  const model = Object.fromEntries(
    Object.entries(properties).map(([key, property]) => [key, validValue(property)]),
  );
  // Required keys the schema gives no properties for (the spec's allOf halves) are anything.
  for (const key of required) model[key] ??= fc.jsonValue({ maxDepth: 1 });
  return fc.record(model, { requiredKeys: required.filter((key) => key in model) });
}

/** Values the schema accepts (as far as a generator can know what it means). */
export function validValue(schema: SchemaObject): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = branchesOf(schema);
  if (branches) {
    const rest = without(schema, 'anyOf', 'oneOf');
    return fc.oneof(...branches.map((branch) => validValue({ ...rest, ...branch })));
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf as SchemaObject[];
    const rest = without(schema, 'allOf');
    if (parts.every(isObjectSchema)) {
      const own = Object.keys(rest).some((key) => key === 'properties' || key === 'type');
      return fc
        .tuple(...[...parts, ...(own ? [rest] : [])].map(validValue))
        .map((values) => Object.assign({}, ...(values as object[])) as unknown);
    }
    return validValue(Object.assign({}, ...parts, rest) as SchemaObject);
  }
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => validValue({ ...schema, type })));
  }
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return integerBetween(schema);
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue((schema.items as SchemaObject | undefined) ?? {}), {
        maxLength: MAX_ITEMS,
      });
    case 'object':
      return objectOf(schema);
  }
  if (schema.properties !== undefined) return objectOf(schema);
  if (schema.default !== undefined) return fc.constant(schema.default);
  return fc.jsonValue({ maxDepth: 1 });
}

export type ValueKind = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'any';

/** What a schema's values are (a nullable address is a string): the first kind a branch has. */
export function kindOf(schema: SchemaObject): ValueKind {
  if (Array.isArray(schema.enum))
    return schema.enum.every((v) => typeof v === 'string') ? 'string' : 'any';
  if (typeof schema.pattern === 'string') return 'string';
  switch (schema.type) {
    case 'string':
    case 'boolean':
    case 'array':
    case 'object':
      return schema.type;
    case 'integer':
    case 'number':
      return 'number';
  }
  if (schema.properties !== undefined) return 'object';
  const parts = branchesOf(schema) ?? (schema.allOf as SchemaObject[] | undefined) ?? [];
  return parts.map(kindOf).find((kind) => kind !== 'any') ?? 'any';
}

/** A place in a schema's values: its JSON pointer and the schema of what goes there. */
export interface Place {
  pointer: string;
  schema: SchemaObject;
}

/**
 * Every place below the root of a schema's values (`/channel/url`, `/orderUids/0`), over all of
 * its branches; a place the branches share is listed once per branch.
 */
export function places(schema: SchemaObject, at = ''): Place[] {
  const found: Place[] = [];
  for (const part of [
    ...(branchesOf(schema) ?? []),
    ...((schema.allOf as SchemaObject[] | undefined) ?? []),
  ]) {
    found.push(...places(part, at));
  }
  const properties = (schema.properties as Record<string, SchemaObject> | undefined) ?? {};
  for (const [key, property] of Object.entries(properties)) {
    found.push({ pointer: `${at}/${key}`, schema: property }, ...places(property, `${at}/${key}`));
  }
  if (schema.type === 'array' && schema.items) {
    const items = schema.items as SchemaObject;
    found.push({ pointer: `${at}/0`, schema: items }, ...places(items, `${at}/0`));
  }
  return found;
}

/** A schema's places, each pointer once (branches repeat the ones they share). */
export const uniquePlaces = (schema: SchemaObject): Place[] => [
  ...new Map(places(schema).map((place) => [place.pointer, place])).values(),
];
