/**
 * Resolves the app data an order brings (reference §4.1 steps 2 and 4): the full document
 * inline, inline with its hash for cross-checking, or the legacy hash form that must name a
 * registered document.
 */
import {
  appDataHash,
  EMPTY_APP_DATA_DOCUMENT,
  validateAppData,
  ZERO_APP_DATA_HASH,
  type ParsedAppData,
} from '../domain/app-data.js';
import type { Hex } from '../domain/events.js';
import { parseHexBytes } from '../domain/hex.js';
import type { AppDataRegistry } from './app-data-registry.js';
import { reject } from './rejection.js';

export interface OrderAppData {
  hash: Hex;
  document: string;
  parsed: ParsedAppData;
  /** The document came inline and is not yet in the registry: record it with the order. */
  needsRegistration: boolean;
}

export async function resolveOrderAppData(
  registry: AppDataRegistry,
  network: string,
  appData: string,
  declaredHash: string | null | undefined,
  sizeLimit: number,
): Promise<OrderAppData> {
  const hashForm = declaredHash == null ? parseHexBytes(appData, 32) : null;
  let hash: Hex;
  let document: string;
  let needsRegistration = false;
  if (hashForm) {
    hash = hashForm;
    const found =
      hash === ZERO_APP_DATA_HASH ? EMPTY_APP_DATA_DOCUMENT : await registry.find(network, hash);
    if (found === null) reject('InvalidAppData', `Unknown pre-image for app data hash ${hash}`);
    document = found;
  } else {
    document = appData;
    hash = appDataHash(document);
    if (declaredHash != null && declaredHash.toLowerCase() !== hash) {
      reject('AppDataHashMismatch', `appDataHash ${declaredHash} does not match ${hash}`);
    }
  }
  const validation = validateAppData(document, sizeLimit);
  if (!validation.ok) reject('InvalidAppData', validation.reason);
  if (validation.appData.enableFastPath) {
    reject('InvalidAppData', "'enableFastPath' is not yet supported");
  }
  if (!hashForm) needsRegistration = (await registry.find(network, hash)) === null;
  return { hash, document, parsed: validation.appData, needsRegistration };
}
