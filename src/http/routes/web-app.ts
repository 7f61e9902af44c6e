/**
 * The web app at `/` (src/web, built to dist/web): its page and its hashed assets, compressed as
 * the client accepts (brotli, then gzip). The page is revalidated on every visit; the assets,
 * named by their content's hash, are kept for a year. Before a build exists, `/` answers 503
 * `WebAppNotBuilt`, saying how to build it.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import { webFiles, type Encoding, type WebFiles } from '../web-files.js';

export function webAppRouter(files: () => Promise<WebFiles | null> = webFiles()): Router {
  const router = new Router();
  const serve = async (ctx: Context, name: string, cacheControl: string) => {
    const built = await files();
    if (!built) {
      throw new ApiError(
        'WebAppNotBuilt',
        'the web app is not built: run `npm run build:web` (npm start does)',
      );
    }
    const file = built.get(name);
    if (!file) throw new ApiError('NotFound', `no file ${name}`);
    // Brotli first whatever order the client lists them in: browsers list gzip first.
    const encoding: Encoding =
      (['br', 'gzip'] as const).find((e) => file.bodies[e] && ctx.acceptsEncodings(e) === e) ??
      'identity';
    ctx.vary('Accept-Encoding');
    ctx.set('Cache-Control', cacheControl);
    if (encoding !== 'identity') ctx.set('Content-Encoding', encoding);
    ctx.type = file.extension;
    ctx.body = file.bodies[encoding] ?? file.bodies.identity;
  };
  for (const page of ['/', '/index.html']) {
    router.get(page, (ctx) => serve(ctx, '/index.html', 'no-cache'));
  }
  router.get('/assets/:file', (ctx) =>
    serve(ctx, `/assets/${ctx.params.file}`, 'public, max-age=31536000, immutable'),
  );
  return router;
}
