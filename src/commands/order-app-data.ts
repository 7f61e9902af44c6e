/**
 * Resolves the app data an order brings (reference §4.1 steps 2 and 4): the full document
 * inline, inline with its hash for cross-checking, or the legacy hash form that must name a
 * registered document.
 */
import {
  appDataHash,
  appDataSizeError,
  EMPTY_APP_DATA_DOCUMENT,
  validateNewAppData,
  ZERO_APP_DATA_HASH,
  type AppDataValidation,
  type ParsedAppData,
} from '../domain/app-data.js';
import type { Hex } from '../domain/events.js';
import { parseHexBytes } from '../bytes/hex.js';
import type { AppDataRegistry } from './app-data-registry.js';
import { reject } from './rejection.js';

export interface OrderAppData {
  hash: Hex;
  document: string;
  parsed: ParsedAppData;
  /** The document came inline and is not yet in the registry: record it with the order. */
  needsRegistration: boolean;
}

/**
 * Step 2: the document an order brings, inline or registered under its hash. For the hash form
 * `document` is null when the registry does not know it; step 4 refuses that.
 */
export interface FoundAppData {
  hash: Hex;
  document: string | null;
  hashForm: boolean;
  /**
   * The document parsed once, without the size limit (step 3 reads it so; step 4 then applies
   * the limit); null with no document.
   */
  validation: AppDataValidation | null;
}

const found = (hash: Hex, document: string | null, hashForm: boolean): FoundAppData => ({
  hash,
  document,
  hashForm,
  validation: document === null ? null : validateNewAppData(document, Number.POSITIVE_INFINITY),
});

export async function findOrderAppData(
  registry: AppDataRegistry,
  network: string,
  appData: string,
  declaredHash: string | null | undefined,
): Promise<FoundAppData> {
  const hashForm = declaredHash == null ? parseHexBytes(appData, 32) : null;
  if (hashForm === null) return found(appDataHash(appData), appData, false);
  const document =
    hashForm === ZERO_APP_DATA_HASH
      ? EMPTY_APP_DATA_DOCUMENT
      : await registry.find(network, hashForm);
  return found(hashForm, document, true);
}

/** Step 4: the document must be known, match its declared hash, and be valid app data. */
export async function checkOrderAppData(
  registry: AppDataRegistry,
  network: string,
  app: FoundAppData,
  declaredHash: string | null | undefined,
  sizeLimit: number,
): Promise<OrderAppData> {
  const { hash, document, validation } = app;
  if (document === null || validation === null) {
    reject('InvalidAppData', `Unknown pre-image for app data hash ${hash}`);
  }
  if (declaredHash != null && declaredHash.toLowerCase() !== hash) {
    reject('AppDataHashMismatch', `appDataHash ${declaredHash} does not match ${hash}`);
  }
  const tooLarge = appDataSizeError(document, sizeLimit);
  if (tooLarge !== null) reject('InvalidAppData', tooLarge);
  if (!validation.ok) reject('InvalidAppData', validation.reason);
  if (validation.appData.enableFastPath) {
    reject('InvalidAppData', "'enableFastPath' is not yet supported");
  }
  const needsRegistration = !app.hashForm && (await registry.find(network, hash)) === null;
  return { hash, document, parsed: validation.appData, needsRegistration };
}

/** Steps 2 and 4 together, for requests with no replacement pre-check between them (quotes). */
export async function resolveOrderAppData(
  registry: AppDataRegistry,
  network: string,
  appData: string,
  declaredHash: string | null | undefined,
  sizeLimit: number,
): Promise<OrderAppData> {
  const app = await findOrderAppData(registry, network, appData, declaredHash);
  return checkOrderAppData(registry, network, app, declaredHash, sizeLimit);
}
