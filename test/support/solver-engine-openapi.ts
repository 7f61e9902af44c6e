/**
 * Checks against the published solver engine API (`shared/reference/cow-solver-engine-openapi.yml`,
 * as cowprotocol/services publishes it in `crates/solvers/openapi.yml`), compiled with ajv.
 *
 * The document is used as published, with the three places where it and the reference driver
 * disagree changed to what the driver sends, since that is what engines are built against (the
 * baseline engine refuses the document's forms):
 *   1. `SigningScheme`: the driver writes `ethsign` and `presign` in lowercase
 *      (`crates/solvers-dto/src/auction.rs`, `rename_all = "lowercase"`); the document says
 *      `ethSign`, `preSign`.
 *   2. `Order.preInteractions`: an order's hooks, `{target, value, callData}` (`InteractionData`),
 *      as its `postInteractions` are; the document gives the solution side's `Interaction`.
 *   3. `Auction.id`: null for a quote, as the document's own text says; its type is a string.
 * OpenAPI 3.0 `nullable` does not occur in it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import { parse } from 'yaml';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SOLVER_ENGINE_OPENAPI_PATH = path.resolve(
  REPO_ROOT,
  '../shared/reference/cow-solver-engine-openapi.yml',
);

type SchemaObject = Record<string, unknown>;

let compiled: Map<string, ValidateFunction> | undefined;

function validators(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const spec = parse(readFileSync(SOLVER_ENGINE_OPENAPI_PATH, 'utf8')) as {
    paths: SchemaObject;
    components: { schemas: Record<string, SchemaObject> };
  };
  const { schemas } = spec.components;
  const known = (name: string) => {
    if (!schemas[name]) throw new Error(`cow-solver-engine-openapi.yml has no schema ${name}`);
    return schemas[name];
  };
  known('SigningScheme').enum = ['eip712', 'ethsign', 'presign', 'eip1271'];
  const order = known('Order').properties as SchemaObject;
  order.preInteractions = {
    type: 'array',
    items: { $ref: '#/components/schemas/InteractionData' },
  };
  const auction = known('Auction').properties as SchemaObject;
  auction.id = { ...(auction.id as SchemaObject), type: ['string', 'null'] };

  const notify = (
    ((spec.paths['/notify'] as SchemaObject).post as SchemaObject).requestBody as SchemaObject
  ).content as Record<string, { schema: SchemaObject }>;
  schemas.Notification = notify['application/json']!.schema;

  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  ajv.addSchema({ $id: 'solver-engine', components: { schemas } } as object);
  compiled = new Map(
    ['Auction', 'Solution', 'Notification'].map((name) => [
      name,
      ajv.compile({ $ref: `solver-engine#/components/schemas/${name}` }),
    ]),
  );
  return compiled;
}

/** Asserts that `value` is a valid `name` (`Auction`, `Solution`, `Notification`) of the API. */
export function expectSolverApi(
  name: 'Auction' | 'Solution' | 'Notification',
  value: unknown,
): void {
  const validate = validators().get(name)!;
  if (validate(value)) return;
  const problems = (validate.errors ?? [])
    .slice(0, 12)
    .map((e) => `  ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');
  expect.fail(`not a valid ${name} of the solver engine API:\n${problems}`);
}
