/**
 * The API described, as a client gets it: `GET /openapi.json` serves the document the suites
 * check answers against, `GET /docs` a page that reads it with the Swagger UI this server serves
 * from swagger-ui-dist (nothing from elsewhere: it works offline), and nothing else of that
 * package. None of them needs a key.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { openApiDocument } from '../../../src/http/openapi/document.js';
import { documentedHttp } from '../../support/openapi.js';
import { suiteTestService } from '../../support/service.js';

const require = createRequire(import.meta.url);

describe('HTTP: the API document and its reference page', function () {
  this.timeout(60_000);
  const service = suiteTestService();

  it('serves the OpenAPI 3.1 document at /openapi.json, with the service version', async () => {
    const version = await documentedHttp<string>('GET', `${service().devnet}/api/v1/version`);
    const served = await documentedHttp<{ openapi: string; info: { version: string } }>(
      'GET',
      `${service().url}/openapi.json`,
    );
    expect(served.status).to.equal(200);
    expect(served.body.openapi).to.equal('3.1.0');
    expect(served.body.info.version).to.equal(version.body);
    expect(served.body).to.deep.equal(openApiDocument(version.body));
  });

  it('serves a reference page at /docs that loads only this server’s files', async () => {
    const page = await documentedHttp<string>('GET', `${service().url}/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const sources = [...page.text.matchAll(/(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]/g)].map(
      (match) => match[1],
    );
    expect(sources).to.have.members([
      '/docs/swagger-ui.css',
      '/docs/swagger-ui-bundle.js',
      '/openapi.json',
    ]);
    expect(page.text).to.include('validatorUrl: null');
    for (const source of sources) {
      const answer = await documentedHttp('GET', `${service().url}${source!}`);
      expect(answer.status, source).to.equal(200);
    }
  });

  it('serves Swagger UI’s script and style from swagger-ui-dist', async () => {
    for (const [file, type] of [
      ['swagger-ui-bundle.js', /^text\/javascript/],
      ['swagger-ui.css', /^text\/css/],
    ] as const) {
      const answer = await documentedHttp('GET', `${service().url}/docs/${file}`);
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.match(type);
      expect(answer.text).to.equal(
        readFileSync(require.resolve(`swagger-ui-dist/${file}`), 'utf8'),
      );
    }
  });

  it('serves no other file, of the package or beside it', async () => {
    for (const name of [
      'index.html',
      'swagger-initializer.js',
      '..%2Fpackage.json',
      'swagger-ui-bundle.js.map',
    ]) {
      const answer = await documentedHttp('GET', `${service().url}/docs/${name}`);
      expect(answer.status, name).to.equal(404);
    }
  });
});
