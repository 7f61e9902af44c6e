/**
 * Debian's Chromium, driven by playwright-core (no browser download: the machine has no
 * internet). A missing binary is installed with apt-get first, as .ci/run does; only where that
 * cannot be done does the caller skip.
 */
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Installs Debian's chromium when missing; false when it still is not there. */
export async function ensureChromium(): Promise<boolean> {
  if (await exists(CHROMIUM)) return true;
  const run = promisify(execFile);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env });
  } catch {
    // An old package list may not know it: read it again once.
    await run('apt-get', ['update'], { env }).catch(() => undefined);
    await run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env }).catch(
      () => undefined,
    );
  }
  return exists(CHROMIUM);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}
