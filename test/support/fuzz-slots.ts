/**
 * The slots of an operation, where a value goes: each body place (a JSON pointer), each path,
 * query and header parameter, and the `{network}` segment. Sweeps and injection tests put their
 * values in every slot of every operation through `withValue`.
 */
import type { Draft } from './fuzz.js';
import { paramText } from './fuzz.js';
import { applyMutation } from './fuzz-mutations.js';
import { isHeaderSafe, percentEncode } from './hostile.js';
import type { SchemaObject } from './openapi.js';
import type { Operation } from './operations.js';
import { uniquePlaces } from './schema-values.js';

/** Where a value goes in a request of an operation: a body place, a parameter, the network. */
export interface Slot {
  where: 'body' | 'path' | 'query' | 'header' | 'network';
  /** The JSON pointer of a body place, else the parameter's name. */
  name: string;
  schema: SchemaObject;
}

/** Every slot of an operation: its body's places and its parameters (and `{network}`). */
export function slotsOf(op: Operation): Slot[] {
  return [
    ...(op.mount === 'network'
      ? [{ where: 'network' as const, name: 'network', schema: { type: 'string' } }]
      : []),
    ...op.parameters.map((p) => ({ where: p.in, name: p.name, schema: p.schema })),
    ...(op.requestBody ? uniquePlaces(op.requestBody) : []).map(({ pointer, schema }) => ({
      where: 'body' as const,
      name: pointer,
      schema,
    })),
  ];
}

/** The value a draft has in a slot (decoded), or undefined. */
export function valueIn(draft: Draft, slot: Slot): unknown {
  switch (slot.where) {
    case 'network':
      return decodeURIComponent(draft.network);
    case 'path': {
      const value = draft.path[slot.name];
      return value === undefined ? undefined : decodeURIComponent(value);
    }
    case 'query': {
      const value = draft.query.find(([name]) => name === percentEncode(slot.name))?.[1];
      return value === undefined ? undefined : decodeURIComponent(value);
    }
    case 'header':
      return draft.headers[slot.name];
    case 'body': {
      let at: unknown = draft.body && 'json' in draft.body ? draft.body.json : undefined;
      for (const key of slot.name.split('/').slice(1)) {
        at =
          at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
      }
      return at;
    }
  }
}

/**
 * The draft with `value` in the slot (parameters as percent-encoded text); null when the value
 * cannot be sent there (a header value fetch refuses).
 */
export function withValue(draft: Draft, slot: Slot, value: unknown): Draft | null {
  const text = paramText(value);
  switch (slot.where) {
    case 'body':
      return applyMutation(draft, { kind: 'place', pointer: slot.name, value });
    case 'network':
      return applyMutation(draft, { kind: 'network', value: percentEncode(text) });
    case 'path':
      return applyMutation(draft, { kind: 'path', name: slot.name, value: percentEncode(text) });
    case 'query':
      return applyMutation(draft, {
        kind: 'query',
        name: percentEncode(slot.name),
        value: percentEncode(text),
        append: false,
      });
    case 'header':
      return isHeaderSafe(text)
        ? applyMutation(draft, { kind: 'header', name: slot.name, value: text })
        : null;
  }
}
