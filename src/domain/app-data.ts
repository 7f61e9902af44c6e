/**
 * App data (reference §5): the JSON document whose keccak hash an order signs as `appData`.
 *
 * The hash is over the exact UTF-8 bytes, without canonicalisation. Validation follows the
 * reference's `Validator::validate`: a size limit, a JSON object at the root, and well-formed
 * values for the protocol keys of `metadata`; every other key is the client's business.
 */
import { keccak256 } from '../bytes/keccak.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { parseUint256 } from './amounts.js';
import type { Address, Hex, OrderUid } from './events.js';
import { bytesToHex, parseAddress, parseHexBytes, parseOrderUid } from '../bytes/hex.js';
import { duplicateKey } from './json-duplicate-keys.js';

export const EMPTY_APP_DATA_DOCUMENT = '{}';
/** Reserved: an order signing the zero hash has the document `{}` (reference §4.1 step 2). */
export const ZERO_APP_DATA_HASH: Hex = `0x${'0'.repeat(64)}`;

export function appDataHash(fullAppData: string): Hex {
  return bytesToHex(keccak256(utf8ToBytes(fullAppData)));
}

export interface Hook {
  target: Address;
  callData: Hex;
  gasLimit: bigint;
}

/** The gas the hooks of both stages may spend: each runs with exactly its limit. */
export function hooksGas(hooks: { pre: readonly Hook[]; post: readonly Hook[] }): bigint {
  return [...hooks.pre, ...hooks.post].reduce((sum, hook) => sum + hook.gasLimit, 0n);
}

export interface ParsedAppData {
  signer?: Address;
  hooks: { pre: Hook[]; post: Hook[] };
  replacedOrder?: OrderUid;
  validFrom?: number;
  enableFastPath: boolean;
  hasWrappers: boolean;
}

export type AppDataValidation =
  { ok: true; appData: ParsedAppData } | { ok: false; reason: string };

/** Thrown inside this module only, to unwind from a nested malformed value with its path. */
class Malformed extends Error {}

type Json = unknown;
type JsonObject = Record<string, Json>;

const U64_MAX = (1n << 64n) - 1n;
const U32_MAX = 0xffffffff;
// Rust's integer `FromStr` (used for hook gas limits) accepts one leading `+`.
const RUST_UNSIGNED = /^\+?[0-9]+$/;

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(path: string, expected: string): never {
  throw new Malformed(`${path}: expected ${expected}`);
}

function object(v: Json, path: string): JsonObject {
  return isObject(v) ? v : fail(path, 'an object');
}

function array(v: Json, path: string): Json[] {
  return Array.isArray(v) ? v : fail(path, 'an array');
}

// App-data addresses deserialise through the reference's plain hex decoder: prefix optional.
function address(v: Json, path: string): Address {
  return parseAddress(v, { allowMissingPrefix: true }) ?? fail(path, 'a 20-byte hex address');
}

function bytes(v: Json, path: string): Hex {
  return parseHexBytes(v) ?? fail(path, '0x-prefixed hex bytes');
}

/** A JSON number that is a whole value in [0, max]. */
function unsigned(v: Json, max: number, path: string): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max
    ? v
    : fail(path, `an integer in [0, ${max}]`);
}

function bool(v: Json, path: string): boolean {
  return typeof v === 'boolean' ? v : fail(path, 'a boolean');
}

function hook(v: Json, path: string): Hook {
  const h = object(v, path);
  const gas = h.gasLimit;
  if (typeof gas !== 'string' || !RUST_UNSIGNED.test(gas) || BigInt(gas) > U64_MAX) {
    fail(`${path}.gasLimit`, 'a decimal u64 string');
  }
  return {
    target: address(h.target, `${path}.target`),
    callData: bytes(h.callData, `${path}.callData`),
    gasLimit: BigInt(gas),
  };
}

function hooks(v: Json, path: string): { pre: Hook[]; post: Hook[] } {
  const h = object(v, path);
  const list = (key: 'pre' | 'post'): Hook[] =>
    h[key] === undefined
      ? []
      : array(h[key], `${path}.${key}`).map((x, i) => hook(x, `${path}.${key}[${i}]`));
  return { pre: list('pre'), post: list('post') };
}

/**
 * One partner fee. The reference tries the forms in this order and ignores extra keys, so the
 * first form whose keys are all present and well typed wins.
 */
function partnerFee(v: Json, path: string): void {
  const fee = object(v, path);
  const isU64 = (x: Json): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  const forms = [
    ['surplusBps', 'maxVolumeBps'],
    ['priceImprovementBps', 'maxVolumeBps'],
    ['volumeBps'],
    ['bps'],
  ];
  if (!forms.some((keys) => keys.every((k) => isU64(fee[k])))) {
    fail(path, 'volumeBps, bps, surplusBps+maxVolumeBps or priceImprovementBps+maxVolumeBps');
  }
  address(fee.recipient, `${path}.recipient`);
}

function flashloan(v: Json, path: string): void {
  const f = object(v, path);
  for (const key of ['liquidityProvider', 'protocolAdapter', 'receiver', 'token']) {
    address(f[key], `${path}.${key}`);
  }
  if (!parseUint256(f.amount).ok) fail(`${path}.amount`, 'a uint256 string');
}

function wrapper(v: Json, path: string): void {
  const w = object(v, path);
  address(w.address, `${path}.address`);
  bytes(w.data, `${path}.data`);
  if (w.isOmittable !== undefined) bool(w.isOmittable, `${path}.isOmittable`);
}

const noHooks = (): { pre: Hook[]; post: Hook[] } => ({ pre: [], post: [] });

/**
 * The protocol keys of `metadata`. Keys the reference models as `Option` treat `null` as unset;
 * the others (`hooks`, `partnerFee`, `wrappers`, `enableFastPath`) have defaults only for a
 * missing key, so `null` there is malformed, as in serde.
 */
function protocolAppData(metadata: JsonObject): ParsedAppData {
  const optional = (key: string): Json => (metadata[key] === null ? undefined : metadata[key]);
  const { hooks: hookList, enableFastPath, partnerFee: fees, wrappers } = metadata;
  const parsed: ParsedAppData = {
    hooks: hookList === undefined ? noHooks() : hooks(hookList, 'metadata.hooks'),
    enableFastPath:
      enableFastPath === undefined ? false : bool(enableFastPath, 'metadata.enableFastPath'),
    hasWrappers: false,
  };
  const signer = optional('signer');
  if (signer !== undefined) parsed.signer = address(signer, 'metadata.signer');
  const replaced = optional('replacedOrder');
  if (replaced !== undefined) {
    const uid = object(replaced, 'metadata.replacedOrder').uid;
    // Unlike other UIDs in bodies, this one requires the 0x prefix (reference §0).
    parsed.replacedOrder =
      parseOrderUid(uid) ?? fail('metadata.replacedOrder.uid', 'a 0x-prefixed 56-byte UID');
  }
  const validFrom = optional('validFrom');
  if (validFrom !== undefined)
    parsed.validFrom = unsigned(validFrom, U32_MAX, 'metadata.validFrom');
  if (fees !== undefined) {
    if (Array.isArray(fees)) fees.forEach((f, i) => partnerFee(f, `metadata.partnerFee[${i}]`));
    else partnerFee(fees, 'metadata.partnerFee');
  }
  const loan = optional('flashloan');
  if (loan !== undefined) flashloan(loan, 'metadata.flashloan');
  if (wrappers !== undefined) {
    const list = array(wrappers, 'metadata.wrappers');
    list.forEach((w, i) => wrapper(w, `metadata.wrappers[${i}]`));
    parsed.hasWrappers = list.length > 0;
  }
  return parsed;
}

/** The deprecated `backend` object: only its `hooks` mean anything. */
function legacyHooks(v: Json): { pre: Hook[]; post: Hook[] } {
  const backend = object(v, 'backend');
  return backend.hooks === undefined ? noHooks() : hooks(backend.hooks, 'backend.hooks');
}

// A lone surrogate cannot be encoded as UTF-8; the reference rejects such documents.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `sizeLimit` is in UTF-8 bytes (reference default 8192). Never throws. */
/** Why a document is over `sizeLimit` bytes of UTF-8; null when it is not. */
export function appDataSizeError(fullAppData: string, sizeLimit: number): string | null {
  const size = Buffer.byteLength(fullAppData, 'utf8');
  return size > sizeLimit
    ? `app data has byte size ${size} which is larger than limit ${sizeLimit}`
    : null;
}

export function validateAppData(fullAppData: string, sizeLimit: number): AppDataValidation {
  if (typeof fullAppData !== 'string') return { ok: false, reason: 'app data is not a string' };
  const tooLarge = appDataSizeError(fullAppData, sizeLimit);
  if (tooLarge !== null) return { ok: false, reason: tooLarge };
  if (LONE_SURROGATE.test(fullAppData)) return { ok: false, reason: 'app data is not valid UTF-8' };
  let root: Json;
  try {
    root = JSON.parse(fullAppData);
  } catch {
    return { ok: false, reason: 'invalid app data json' };
  }
  if (!isObject(root)) return { ok: false, reason: 'invalid app data json: expected an object' };
  try {
    // Both keys are checked, as the reference deserialises the whole root; `backend.hooks`
    // counts only when `metadata` is absent.
    const backend =
      root.backend === undefined || root.backend === null ? noHooks() : legacyHooks(root.backend);
    const metadata =
      root.metadata === undefined || root.metadata === null ? undefined : root.metadata;
    const appData =
      metadata === undefined
        ? { hooks: backend, enableFastPath: false, hasWrappers: false }
        : protocolAppData(object(metadata, 'metadata'));
    return { ok: true, appData };
  } catch (err) {
    if (err instanceof Malformed)
      return { ok: false, reason: `invalid app data json: ${err.message}` };
    throw err;
  }
}

/**
 * `validateAppData` for a document offered now (registered, or brought by an order or a quote):
 * it also refuses a key repeated within one object, as a strict JSON reader would, rather than
 * reading the last value. Documents already in the ledger are read with `validateAppData`, as
 * they were accepted.
 */
export function validateNewAppData(fullAppData: string, sizeLimit: number): AppDataValidation {
  const validation = validateAppData(fullAppData, sizeLimit);
  if (!validation.ok) return validation;
  const repeated = duplicateKey(fullAppData);
  return repeated === null
    ? validation
    : { ok: false, reason: `invalid app data json: duplicate key ${JSON.stringify(repeated)}` };
}
