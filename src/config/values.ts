/**
 * Reading one variable of the environment as a value of a kind, or refusing it with an error
 * that names it. The environment is given: only src/config.ts reads process.env.
 */
import type { Address } from '../domain/events.js';
import { parseAddress } from '../bytes/hex.js';

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export function integer(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be within ${min}..${max}`);
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // Not echoed: URLs here carry passwords and API keys (SMTP_URL, REDIS_URL, RPC URLs).
    throw new ConfigError(name, 'is not a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

export function addresses(env: Env, name: string): ReadonlySet<Address> {
  const raw = env[name] ?? '';
  const set = new Set<Address>();
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const address = parseAddress(item);
    if (!address) throw new ConfigError(name, `holds an invalid address: "${item}"`);
    set.add(address);
  }
  return set;
}
