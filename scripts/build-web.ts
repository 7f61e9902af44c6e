/**
 * Builds the web app (src/web) into dist/web with Vite, unless the build there was made from the
 * same sources: `npm start` runs it first (`prestart`), so a fresh clone serves the app offline
 * with nothing more to run. Each script, style and page is also written compressed (brotli and
 * gzip), which the server hands to clients that accept it.
 *
 *   npm run build:web [-- --force]
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'vite';
import { WEB_APP_DIR } from '../src/http/web-files.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const WEB_SOURCE_DIR = path.join(ROOT, 'src/web');
const STAMP = '.source-hash';
const COMPRESSED = /\.(js|css|html|svg|json)$/;

/** Every file the build depends on: the app's sources, the lock file, this script. */
async function sourceHash(): Promise<string> {
  const hash = createHash('sha256');
  const sources = (await readdir(WEB_SOURCE_DIR, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of [
    ...sources,
    path.join(ROOT, 'package-lock.json'),
    fileURLToPath(import.meta.url),
  ]) {
    hash
      .update(path.relative(ROOT, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Builds unless dist/web holds a build of these sources; true when it built. */
export async function buildWebApp({ force = false } = {}): Promise<boolean> {
  const hash = await sourceHash();
  const stamp = path.join(WEB_APP_DIR, STAMP);
  if (!force && (await readFile(stamp, 'utf8').catch(() => null)) === hash) return false;
  await rm(WEB_APP_DIR, { recursive: true, force: true });
  await build({
    root: WEB_SOURCE_DIR,
    base: '/',
    configFile: false,
    logLevel: 'warn',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: WEB_APP_DIR,
      emptyOutDir: true,
      target: 'es2022',
      reportCompressedSize: false,
    },
  });
  const files = (await readdir(WEB_APP_DIR, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile() && COMPRESSED.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
  for (const file of files) {
    const content = await readFile(file);
    await writeFile(
      `${file}.br`,
      brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    await writeFile(`${file}.gz`, gzipSync(content, { level: 9 }));
  }
  await mkdir(WEB_APP_DIR, { recursive: true });
  await writeFile(stamp, hash);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const began = Date.now();
  const built = await buildWebApp({ force: process.argv.includes('--force') });
  console.log(
    built
      ? `web app built in ${Date.now() - began} ms (dist/web)`
      : 'web app is up to date (dist/web)',
  );
}
