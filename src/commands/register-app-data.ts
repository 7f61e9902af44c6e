/**
 * PUT /api/v1/app_data[/{hash}]: validate an app-data document and record it in the ledger
 * (reference §5). Registering the same document again is a success that writes nothing.
 */
import { appDataHash, validateNewAppData } from '../domain/app-data.js';
import type { Hex } from '../domain/events.js';
import type { AppDataRegistry } from './app-data-registry.js';
import { reject } from './rejection.js';

export interface RegisterAppDataDeps {
  registry: AppDataRegistry;
  sizeLimit: number;
  clock: () => Date;
}

export interface RegisterAppDataResult {
  hash: Hex;
  created: boolean;
  position: string;
}

export async function registerAppData(
  deps: RegisterAppDataDeps,
  network: string,
  fullAppData: string,
  expectedHash: Hex | null,
): Promise<RegisterAppDataResult> {
  const validation = validateNewAppData(fullAppData, deps.sizeLimit);
  if (!validation.ok) reject('AppDataInvalid', `appData is invalid: ${validation.reason}`);
  const hash = appDataHash(fullAppData);
  if (expectedHash !== null && expectedHash !== hash) {
    reject('AppDataHashMismatch', `the app data hash is ${hash}, not ${expectedHash}`);
  }
  const { created, position } = await deps.registry.register(
    network,
    hash,
    fullAppData,
    deps.clock(),
  );
  return { hash, created, position };
}
