/**
 * The API described: `GET /openapi.json`, the OpenAPI 3.1 document of everything served
 * (src/http/openapi/), and `GET /docs`, a page that reads it with Swagger UI. Swagger UI's script
 * and style come from the `swagger-ui-dist` package on this server, never from a CDN: the page
 * works offline. Its validator badge is off, since it would send the document to
 * validator.swagger.io.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { openApiDocument } from '../openapi/document.js';

/** The files the page loads, by their name under `/docs/`, and their media types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};
/** The package's files change only with its version, i.e. with an install and a restart. */
const ASSET_MAX_AGE_SECONDS = 3600;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>batchbook API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
  </head>
  <body>
    <div id="api-reference"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script>
      SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api-reference', deepLinking: true, validatorUrl: null });
    </script>
  </body>
</html>
`;

const require = createRequire(import.meta.url);
const loaded = new Map<string, Buffer>();

/** A file of swagger-ui-dist, read from node_modules once. */
function asset(name: string): Buffer {
  let content = loaded.get(name);
  if (!content) {
    content = readFileSync(require.resolve(`swagger-ui-dist/${name}`));
    loaded.set(name, content);
  }
  return content;
}

export function docsRouter(deps: HttpDeps): Router {
  const router = new Router();

  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument(deps.version);
  });

  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });

  router.get('/docs/:asset', (ctx) => {
    const name = ctx.params.asset!;
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (type === undefined) throw new ApiError('NotFound', `no file ${JSON.stringify(name)}`);
    ctx.type = type;
    ctx.set('Cache-Control', `public, max-age=${ASSET_MAX_AGE_SECONDS}`);
    ctx.body = asset(name);
  });

  return router;
}
