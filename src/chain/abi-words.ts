/**
 * The calldata and results of the few calls behind order submission (src/chain/order-checks.ts),
 * written and read straight as ABI words. ethers' `Interface` checksums every address argument
 * (a keccak each), recomputes the selector (another keccak) and builds coder objects on every
 * call: ~4-5% of the service thread under concurrent submissions.
 *
 * The layouts are fixed: a constant 4-byte selector, then 32-byte words (addresses left-padded,
 * uint256 as 64 hex digits, `bytes` as offset, length and data right-padded to a word). Results
 * are read exactly as ethers' `decodeFunctionResult` reads them, including what it refuses and
 * the error it throws (`BAD_DATA` with the result as `value`, `INVALID_ARGUMENT` for what is not
 * hex at all): callers tell an empty answer ('0x', no code at the address) by that error.
 * test/unit/chain/abi-words.test.ts holds all of it against ethers.
 */
import { assertArgument, getAddress, makeError } from 'ethers';
import type { Hex } from '../domain/events.js';

/** The functions, by name: their signature (the selector's preimage) and selector. */
export const ABI_FUNCTIONS = {
  balanceOf: { signature: 'balanceOf(address)', selector: '0x70a08231' },
  allowance: { signature: 'allowance(address,address)', selector: '0xdd62ed3e' },
  transferFrom: { signature: 'transferFrom(address,address,uint256)', selector: '0x23b872dd' },
  isValidSignature: { signature: 'isValidSignature(bytes32,bytes)', selector: '0x1626ba7e' },
} as const;

export type AbiFunction = keyof typeof ABI_FUNCTIONS;

const MAX_UINT256 = (1n << 256n) - 1n;
const LOWERCASE_ADDRESS = /^0x[0-9a-f]{40}$/;
/** What ethers' `getBytes` takes for hex (with an even digit count). */
const HEX = /^0x[0-9a-f]*$/i;
const WORD = /^0x[0-9a-f]{64}$/i;
const ADDRESS_PADDING = '0'.repeat(24);
const ZERO_WORD = '0'.repeat(64);
/** The head word of `isValidSignature(bytes32,bytes)`'s `bytes`: its tail starts after two words. */
const SECOND_ARGUMENT_TAIL = (64).toString(16).padStart(64, '0');

/**
 * An address argument as its word. Lowercase (the ledger's form, every caller here) needs no
 * checksum; any other spelling goes through ethers' `getAddress`, which checks a mixed-case
 * checksum and refuses what is no address (`INVALID_ARGUMENT`), as `encodeFunctionData` would.
 */
export function addressWord(address: string): string {
  const lower = LOWERCASE_ADDRESS.test(address) ? address : getAddress(address).toLowerCase();
  return ADDRESS_PADDING + lower.slice(2);
}

/** A uint256 argument as its word; out of range is `INVALID_ARGUMENT`, as ethers refuses it. */
export function uint256Word(value: bigint, name = 'value'): string {
  assertArgument(
    typeof value === 'bigint' && value >= 0n && value <= MAX_UINT256,
    'value out-of-bounds',
    name,
    value,
  );
  return value.toString(16).padStart(64, '0');
}

/** Hex bytes as ethers takes them (any letter case, even digit count), lowercase, no prefix. */
function hexDigits(value: string, name: string): string {
  assertArgument(
    typeof value === 'string' && value.length % 2 === 0 && HEX.test(value),
    'invalid BytesLike value',
    name,
    value,
  );
  return value.slice(2).toLowerCase();
}

function bytes32Word(value: string, name: string): string {
  const digits = hexDigits(value, name);
  assertArgument(digits.length === 64, 'incorrect data length', name, value);
  return digits;
}

/** The tail of a dynamic `bytes`: its length in bytes, then the data right-padded to a word. */
function bytesTail(value: string, name: string): string {
  const digits = hexDigits(value, name);
  const padded = digits.padEnd(Math.ceil(digits.length / 64) * 64, '0');
  return (digits.length / 2).toString(16).padStart(64, '0') + padded;
}

export const encodeBalanceOf = (owner: string): Hex =>
  `${ABI_FUNCTIONS.balanceOf.selector}${addressWord(owner)}`;

export const encodeAllowance = (owner: string, spender: string): Hex =>
  `${ABI_FUNCTIONS.allowance.selector}${addressWord(owner)}${addressWord(spender)}`;

export const encodeTransferFrom = (from: string, to: string, amount: bigint): Hex =>
  `${ABI_FUNCTIONS.transferFrom.selector}${addressWord(from)}${addressWord(to)}${uint256Word(amount, 'amount')}`;

export const encodeIsValidSignature = (hash: string, signature: string): Hex =>
  `${ABI_FUNCTIONS.isValidSignature.selector}${bytes32Word(hash, 'hash')}${SECOND_ARGUMENT_TAIL}${bytesTail(signature, 'signature')}`;

/** `value` is the hex of exactly one 32-byte word (any letter case). */
export const isAbiWord = (value: unknown): value is Hex =>
  typeof value === 'string' && WORD.test(value);

/**
 * The first word of an `eth_call` result, as ethers' `decodeFunctionResult` reads a function
 * with one static output: hex with an even digit count (else `INVALID_ARGUMENT`), a non-zero
 * multiple of 32 bytes (else `BAD_DATA`; '0x', the answer of an address without code, is
 * "could not decode"), of which it reads the first word and ignores the rest.
 */
function firstWord(result: unknown, fn: AbiFunction): string {
  if (isAbiWord(result)) return result.slice(2).toLowerCase(); // the usual answer
  const digits = hexDigits(result as string, 'value');
  if (digits.length === 0 || digits.length % 64 !== 0) {
    throw makeError(
      digits.length === 0 ? 'could not decode result data' : 'invalid length for result data',
      'BAD_DATA',
      {
        value: `0x${digits}`,
        info: { method: fn, signature: ABI_FUNCTIONS[fn].signature },
      },
    );
  }
  return digits.slice(0, 64);
}

export const decodeUint256 = (result: unknown, fn: AbiFunction): bigint =>
  BigInt(`0x${firstWord(result, fn)}`);

/** Any non-zero word is true, as ethers reads a bool (and as GPv2SafeERC20 takes the result). */
export const decodeBool = (result: unknown, fn: AbiFunction): boolean =>
  firstWord(result, fn) !== ZERO_WORD;

/** The word's first four bytes; the rest is not looked at, as by ethers. */
export const decodeBytes4 = (result: unknown, fn: AbiFunction): Hex =>
  `0x${firstWord(result, fn).slice(0, 8)}`;
