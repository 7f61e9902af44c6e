/**
 * The web app's built files (`npm run build:web` writes them to dist/web, each script and style
 * also compressed with brotli and gzip), held in memory once read: a few hundred KiB. A build
 * that is not there yet is looked for again at the next request.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_APP_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

export type Encoding = 'br' | 'gzip' | 'identity';

export interface WebFile {
  /** Its content in each encoding it was built in; `identity` always. */
  bodies: Partial<Record<Encoding, Buffer>> & { identity: Buffer };
  /** The extension Koa sets the content type by. */
  extension: string;
}

/** Files by their path under the app's root, e.g. `/index.html`, `/assets/index-3f2a.js`. */
export type WebFiles = ReadonlyMap<string, WebFile>;

async function readBuild(dir: string): Promise<WebFiles> {
  const files = new Map<string, WebFile>();
  const names = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    );
  const compressed = /\.(br|gz)$/;
  for (const name of names.filter((n) => !compressed.test(n) && !n.startsWith('.'))) {
    const read = (suffix: string) => readFile(path.join(dir, name + suffix)).catch(() => undefined);
    const [identity, br, gzip] = await Promise.all([read(''), read('.br'), read('.gz')]);
    files.set(`/${name}`, {
      bodies: { identity: identity!, ...(br ? { br } : {}), ...(gzip ? { gzip } : {}) },
      extension: path.extname(name),
    });
  }
  return files;
}

/** The build in `dir`, read at the first call that finds it. */
export function webFiles(dir: string = WEB_APP_DIR): () => Promise<WebFiles | null> {
  let found: Promise<WebFiles> | null = null;
  return async () => {
    found ??= readBuild(dir);
    try {
      return await found;
    } catch {
      found = null;
      return null;
    }
  };
}
