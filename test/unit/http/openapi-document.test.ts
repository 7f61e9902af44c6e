/**
 * The served OpenAPI document (src/http/openapi/) against what serves it: a valid OpenAPI 3.1
 * document whose schemas all compile; its reference part the published spec as the generator
 * makes it (so an edit of one without the other fails here); its request bodies the files of
 * schemas/requests; and every route the Koa routers serve documented, every documented one
 * served.
 */
import { METHODS } from 'node:http';
import Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { schemaFile } from '../../../schemas/validators.js';
import { createHttpApp } from '../../../src/http/app.js';
import type { HttpDeps } from '../../../src/http/deps.js';
import { openApiDocument, REFERENCE_API_FILE } from '../../../src/http/openapi/document.js';
import { createMemoryRateLimitStore } from '../../../src/http/rate-limit-store.js';
import { referenceApi } from '../../support/reference-openapi.js';
import { readFileSync } from 'node:fs';

type JsonObject = Record<string, unknown>;

const document = openApiDocument('test') as {
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject> };
};
const OPERATION_METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** A path with its parameters blanked, `:uid` and `{UID}` alike: `/{}/api/v1/orders/{}`. */
const shape = (path: string) => path.replace(/:\w+|\{[^}]+\}/g, '{}');

/**
 * What the app serves: every route layer of every router in its middleware (`routes()` and the
 * app's gated routers carry theirs), but the `router.all` layers, which only answer 405.
 */
function servedRoutes(deps: HttpDeps): Set<string> {
  const served = new Set<string>();
  for (const middleware of createHttpApp(deps).middleware) {
    const router = (middleware as { router?: Router }).router;
    if (!router) continue;
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') continue;
      if (METHODS.every((method) => layer.methods.includes(method))) continue;
      for (const method of layer.methods) {
        if (method !== 'HEAD') served.add(`${method.toLowerCase()} ${shape(layer.path)}`);
      }
    }
  }
  return served;
}

function documentedRoutes(): Set<string> {
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of OPERATION_METHODS) {
      if (item[method]) documented.add(`${method} ${shape(path)}`);
    }
  }
  return documented;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors, JSON.stringify(result.errors, null, 1)).to.equal(undefined);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('has schemas that all compile, every reference resolving', () => {
    const ajv = new Ajv2020({ strict: false, logger: false });
    ajv.addSchema({ ...document, $id: 'doc' });
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` }), name).not.to.throw();
    }
  });

  it("holds the reference's operations as the generator makes them from the published spec", () => {
    const committed: unknown = JSON.parse(readFileSync(REFERENCE_API_FILE, 'utf8'));
    expect(committed, 'run scripts/generate-openapi-reference.ts').to.deep.equal(referenceApi());
  });

  it('takes its request bodies from schemas/requests', () => {
    const bodyOf = (path: string, method: string) =>
      (
        (document.paths[path]![method]!.requestBody as JsonObject).content as Record<
          string,
          JsonObject
        >
      )['application/json']!.schema as { $ref: string };
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    expect(bodyOf('/{network}/api/v1/orders', 'post')).to.deep.equal(ref('OrderCreationBody'));
    expect(bodyOf('/{network}/api/v1/quote', 'post')).to.deep.equal(ref('OrderQuoteBody'));
    expect(bodyOf('/accounts/{account}/subscriptions', 'post')).to.deep.equal(
      ref('SubscriptionCreateBody'),
    );
    // The file's schema, its references by `$id` pointed into the document.
    const file = schemaFile('order-creation') as JsonObject;
    const component = document.components.schemas.OrderCreationBody!;
    expect(component.required).to.deep.equal(file.required);
    expect(Object.keys(component.properties as JsonObject)).to.deep.equal(
      Object.keys(file.properties as JsonObject),
    );
    expect((component.properties as Record<string, JsonObject>).sellToken).to.deep.equal(
      ref('RequestDefinitions/$defs/address'),
    );
    // Every operation that takes a body takes one of these.
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of OPERATION_METHODS) {
        const requestBody = item[method]?.requestBody;
        if (requestBody) expect(bodyOf(path, method).$ref, `${method} ${path}`).to.match(/Body$/);
      }
    }
  });

  it('documents every route the routers serve, and serves every route it documents', () => {
    const logger = pino({ level: 'silent' });
    // The app is only built, never asked: its commands and queries are not called.
    const deps = {
      logger,
      trustedProxies: 0,
      version: 'test',
      liveNetworks: new Set<string>(),
      rateLimits: {
        store: createMemoryRateLimitStore({ clock: () => new Date() }),
        quotesPerSecond: 0,
        ordersPerSecond: 0,
        pricesPerSecond: 0,
        appDataPerSecond: 0,
        cancellationsPerSecond: 0,
        subscriptionChangesPerSecond: 0,
        subscriptionsPerHour: 0,
      },
      requestMetrics: (_ctx, next) => next(),
      admin: { apiKey: null, registry: new Registry() },
      queries: {} as HttpDeps['queries'],
    } as Partial<HttpDeps> as HttpDeps;
    const served = servedRoutes(deps);
    const documented = documentedRoutes();
    const undocumented = [...served].filter((route) => !documented.has(route));
    const unserved = [...documented].filter((route) => !served.has(route));
    expect(undocumented, 'served but not documented').to.deep.equal([]);
    expect(unserved, 'documented but not served').to.deep.equal([]);
    expect(served.size).to.be.greaterThan(30);
  });
});
