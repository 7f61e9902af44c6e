/**
 * EIP-712 hashing of orders and cancellations for GPv2Settlement (reference §4.2, §4.3), and the
 * order UID.
 *
 * This is the hot path of order placement, so it does not go through a generic typed-data
 * encoder: the type hashes and the constant string fields are hashed once at load, the struct is
 * written straight into one buffer, and domain separators are memoised (DESIGN §9).
 */
import { keccak256 } from '../bytes/keccak.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { MAX_UINT256 } from './amounts.js';
import type { Address, Hex, OrderData, OrderUid } from './events.js';
import { bytesToHex } from '../bytes/hex.js';

const keccakText = (s: string): Uint8Array => keccak256(utf8ToBytes(s));

export const DOMAIN_TYPE_HASH = keccakText(
  'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)',
);
export const ORDER_TYPE_HASH = keccakText(
  'Order(address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,' +
    'uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,' +
    'string sellTokenBalance,string buyTokenBalance)',
);
export const CANCELLATION_TYPE_HASH = keccakText('OrderCancellation(bytes orderUid)');
export const CANCELLATIONS_TYPE_HASH = keccakText('OrderCancellations(bytes[] orderUids)');

const DOMAIN_NAME_HASH = keccakText('Gnosis Protocol');
const DOMAIN_VERSION_HASH = keccakText('v2');

// EIP-712 encodes `string` members as the keccak of their bytes.
const KIND_HASHES: Readonly<Record<string, Uint8Array>> = {
  sell: keccakText('sell'),
  buy: keccakText('buy'),
};
const BALANCE_HASHES: Readonly<Record<string, Uint8Array>> = {
  erc20: keccakText('erc20'),
  external: keccakText('external'),
  internal: keccakText('internal'),
};

const WORD = 32;
const UID_HEX_LENGTH = 2 + 56 * 2;

// The writers below throw on malformed fields: callers pass parsed orders, so a failure here is
// a bug upstream, and a silently wrong digest would be worse than an exception.

function writeAddress(buf: Buffer, word: number, address: string): void {
  const at = word * WORD + 12;
  if (address.length !== 42 || buf.write(address.slice(2), at, 20, 'hex') !== 20) {
    throw new TypeError(`not an address: ${address}`);
  }
}

function writeBytes32(buf: Buffer, word: number, hex: string): void {
  if (hex.length !== 66 || buf.write(hex.slice(2), word * WORD, WORD, 'hex') !== WORD) {
    throw new TypeError(`not 32 bytes: ${hex}`);
  }
}

function writeUint256(buf: Buffer, word: number, value: bigint): void {
  if (value < 0n || value > MAX_UINT256) throw new RangeError(`not a uint256: ${value}`);
  buf.write(value.toString(16).padStart(64, '0'), word * WORD, WORD, 'hex');
}

function writeUint32(buf: Buffer, word: number, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new RangeError(`not a uint32: ${value}`);
  }
  buf.writeUInt32BE(value, word * WORD + 28);
}

function writeHash(buf: Buffer, word: number, hash: Uint8Array | undefined, what: string): void {
  if (hash === undefined) throw new TypeError(`unknown ${what}`);
  buf.set(hash, word * WORD);
}

/** keccak256(0x19 ‖ 0x01 ‖ domainSeparator ‖ structHash). */
export function typedDataDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Uint8Array {
  const message = Buffer.allocUnsafe(2 + 2 * WORD);
  message[0] = 0x19;
  message[1] = 0x01;
  message.set(domainSeparator, 2);
  message.set(structHash, 2 + WORD);
  return keccak256(message);
}

const domainSeparators = new Map<string, Uint8Array>();

/**
 * The GPv2 domain separator. Memoised per (chainId, contract); the returned array is shared, so
 * callers must not mutate it.
 */
export function domainSeparator(chainId: number, verifyingContract: Address): Uint8Array {
  const key = `${chainId}:${verifyingContract.toLowerCase()}`;
  let separator = domainSeparators.get(key);
  if (separator === undefined) {
    const buf = Buffer.alloc(5 * WORD);
    buf.set(DOMAIN_TYPE_HASH, 0);
    buf.set(DOMAIN_NAME_HASH, WORD);
    buf.set(DOMAIN_VERSION_HASH, 2 * WORD);
    writeUint256(buf, 3, BigInt(chainId));
    writeAddress(buf, 4, verifyingContract);
    separator = keccak256(buf);
    domainSeparators.set(key, separator);
  }
  return separator;
}

/** The EIP-712 digest an order's owner signs. Amounts must be uint256 strings (decimal or 0x). */
export function orderDigest(order: OrderData, domainSeparator: Uint8Array): Uint8Array {
  const buf = Buffer.alloc(13 * WORD);
  buf.set(ORDER_TYPE_HASH, 0);
  writeAddress(buf, 1, order.sellToken);
  writeAddress(buf, 2, order.buyToken);
  // A null receiver means "the owner", which the contract encodes as the zero address.
  if (order.receiver !== null) writeAddress(buf, 3, order.receiver);
  writeUint256(buf, 4, BigInt(order.sellAmount));
  writeUint256(buf, 5, BigInt(order.buyAmount));
  writeUint32(buf, 6, order.validTo);
  writeBytes32(buf, 7, order.appData);
  writeUint256(buf, 8, BigInt(order.feeAmount));
  writeHash(buf, 9, KIND_HASHES[order.kind], `kind ${order.kind}`);
  buf[10 * WORD + 31] = order.partiallyFillable ? 1 : 0;
  writeHash(buf, 11, BALANCE_HASHES[order.sellTokenBalance], 'sellTokenBalance');
  writeHash(buf, 12, BALANCE_HASHES[order.buyTokenBalance], 'buyTokenBalance');
  return typedDataDigest(domainSeparator, keccak256(buf));
}

/** UID = digest(32) ‖ owner(20) ‖ uint32be(validTo), lowercase hex. */
export function computeOrderUid(digest: Uint8Array, owner: Address, validTo: number): OrderUid {
  if (digest.length !== WORD) throw new TypeError('digest must be 32 bytes');
  if (owner.length !== 42) throw new TypeError(`not an address: ${owner}`);
  if (!Number.isInteger(validTo) || validTo < 0 || validTo > 0xffffffff) {
    throw new RangeError(`not a uint32: ${validTo}`);
  }
  return `${bytesToHex(digest)}${owner.slice(2).toLowerCase()}${validTo.toString(16).padStart(8, '0')}`;
}

export function splitOrderUid(uid: OrderUid): { digest: Hex; owner: Address; validTo: number } {
  if (uid.length !== UID_HEX_LENGTH) throw new TypeError(`not an order UID: ${uid}`);
  const lower = uid.toLowerCase();
  return {
    digest: `0x${lower.slice(2, 66)}`,
    owner: `0x${lower.slice(66, 106)}`,
    validTo: Number.parseInt(lower.slice(106), 16),
  };
}

function uidHash(uid: OrderUid): Uint8Array {
  const bytes = Buffer.from(uid.slice(2), 'hex');
  if (uid.length !== UID_HEX_LENGTH || bytes.length !== 56) {
    throw new TypeError(`not an order UID: ${uid}`);
  }
  return keccak256(bytes);
}

/** Digest of `OrderCancellations(bytes[] orderUids)`: what the SDK signs for any cancellation. */
export function cancellationsDigest(
  uids: readonly OrderUid[],
  domainSeparator: Uint8Array,
): Uint8Array {
  // EIP-712 encodes a dynamic array as the keccak of its members' encodings, concatenated.
  const members = Buffer.allocUnsafe(uids.length * WORD);
  uids.forEach((uid, i) => members.set(uidHash(uid), i * WORD));
  const struct = Buffer.allocUnsafe(2 * WORD);
  struct.set(CANCELLATIONS_TYPE_HASH, 0);
  struct.set(keccak256(members), WORD);
  return typedDataDigest(domainSeparator, keccak256(struct));
}

/** Digest of `OrderCancellation(bytes orderUid)`: the single-order form of the reference API. */
export function cancellationDigest(uid: OrderUid, domainSeparator: Uint8Array): Uint8Array {
  const struct = Buffer.allocUnsafe(2 * WORD);
  struct.set(CANCELLATION_TYPE_HASH, 0);
  struct.set(uidHash(uid), WORD);
  return typedDataDigest(domainSeparator, keccak256(struct));
}
