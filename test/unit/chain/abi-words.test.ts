/**
 * The order submission's calldata and results, written and read straight as ABI words
 * (src/chain/abi-words.ts), against ethers' `Interface`, which the chain checks used before:
 * the same calldata for every argument ethers takes, the same refusals, the same results for
 * every answer and the same errors for every malformed one.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { getAddress, id, Interface, isError } from 'ethers';
import {
  ABI_FUNCTIONS,
  decodeBool,
  decodeBytes4,
  decodeUint256,
  encodeAllowance,
  encodeBalanceOf,
  encodeIsValidSignature,
  encodeTransferFrom,
  isAbiWord,
  type AbiFunction,
} from '../../../src/chain/abi-words.js';

// The ABI the chain checks used before, with ethers.
const ethersAbi = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transferFrom(address from, address to, uint256 amount) returns (bool)',
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);

const MAX_UINT256 = (1n << 256n) - 1n;
const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;

/** Hex in a random letter case (ethers takes any for bytes). */
const anyCase = (hex: string) =>
  fc
    .array(fc.boolean(), { minLength: hex.length, maxLength: hex.length })
    .map(
      (upper) => `0x${[...hex.slice(2)].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')}`,
    );

const bytes = (minLength: number, maxLength: number) =>
  fc.uint8Array({ minLength, maxLength }).map(toHex);

/** An address in every spelling ethers takes: lowercase, uppercase, checksummed, no prefix. */
const address = bytes(20, 20).chain((lower) =>
  fc.constantFrom(
    lower,
    `0x${lower.slice(2).toUpperCase()}`,
    getAddress(lower),
    lower.slice(2),
    getAddress(lower).slice(2),
  ),
);
const amount = fc.oneof(
  fc.bigInt({ min: 0n, max: MAX_UINT256 }),
  fc.constantFrom(0n, 1n, MAX_UINT256, 10n ** 18n),
);

/** What `fn` throws, or null when it returns. */
function thrown(fn: () => unknown): Error | null {
  try {
    fn();
    return null;
  } catch (error) {
    return error as Error;
  }
}

/** Both refuse alike: the same ethers error code (and, for BAD_DATA, the same value and text). */
function expectSameRefusal(ours: Error | null, theirs: Error | null) {
  expect(ours, 'ours refused').to.be.instanceOf(Error);
  expect(theirs, 'ethers refused').to.be.instanceOf(Error);
  const code = (theirs as Error & { code: string }).code;
  expect(isError(ours, code as 'BAD_DATA'), `ours is ${code}`).to.equal(true);
  if (isError(theirs, 'BAD_DATA')) {
    expect((ours as typeof theirs).value).to.equal(theirs.value);
    expect(ours!.message).to.equal(theirs.message);
  }
}

describe('ABI words of the order submission checks', () => {
  it('uses the selectors ethers computes from the signatures', () => {
    for (const [name, { signature, selector }] of Object.entries(ABI_FUNCTIONS)) {
      expect(selector, signature).to.equal(id(signature).slice(0, 10));
      expect(ethersAbi.getFunction(name)!.selector).to.equal(selector);
      expect(ethersAbi.getFunction(name)!.format()).to.equal(signature);
    }
  });

  describe('calldata', () => {
    it('balanceOf and allowance equal ethers encodeFunctionData', () => {
      fc.assert(
        fc.property(address, address, (owner, spender) => {
          expect(encodeBalanceOf(owner)).to.equal(
            ethersAbi.encodeFunctionData('balanceOf', [owner]),
          );
          expect(encodeAllowance(owner, spender)).to.equal(
            ethersAbi.encodeFunctionData('allowance', [owner, spender]),
          );
        }),
        { numRuns: 300 },
      );
    });

    it('transferFrom equals ethers encodeFunctionData', () => {
      fc.assert(
        fc.property(address, address, amount, (from, to, value) => {
          expect(encodeTransferFrom(from, to, value)).to.equal(
            ethersAbi.encodeFunctionData('transferFrom', [from, to, value]),
          );
        }),
        { numRuns: 300 },
      );
    });

    it('isValidSignature (bytes32 and dynamic bytes) equals ethers encodeFunctionData', () => {
      const hash = bytes(32, 32).chain(anyCase);
      // Empty, shorter and longer than a word, exact multiples of a word.
      const signature = fc
        .oneof(
          bytes(0, 200),
          fc.constantFrom(0, 32, 64, 65, 96).chain((n) => bytes(n, n)),
        )
        .chain(anyCase);
      fc.assert(
        fc.property(hash, signature, (digest, sig) => {
          expect(encodeIsValidSignature(digest, sig)).to.equal(
            ethersAbi.encodeFunctionData('isValidSignature', [digest, sig]),
          );
        }),
        { numRuns: 300 },
      );
      // The layout spelled out once: selector, hash, offset 0x40, length, padded data.
      expect(encodeIsValidSignature(`0x${'11'.repeat(32)}`, '0x1234')).to.equal(
        `0x1626ba7e${'11'.repeat(32)}${'40'.padStart(64, '0')}${'2'.padStart(64, '0')}1234${'0'.repeat(60)}`,
      );
    });

    it('refuses the arguments ethers refuses, with INVALID_ARGUMENT', () => {
      const lower = `0x${'ab'.repeat(20)}`;
      const badChecksum = `0x${'aB'.repeat(20)}`;
      const cases: [string, () => unknown, () => unknown][] = [
        [
          'amount below zero',
          () => encodeTransferFrom(lower, lower, -1n),
          () => ethersAbi.encodeFunctionData('transferFrom', [lower, lower, -1n]),
        ],
        [
          'amount above uint256',
          () => encodeTransferFrom(lower, lower, MAX_UINT256 + 1n),
          () => ethersAbi.encodeFunctionData('transferFrom', [lower, lower, MAX_UINT256 + 1n]),
        ],
        ...[
          badChecksum,
          `0x${'ab'.repeat(19)}`,
          `0x${'ab'.repeat(21)}`,
          `0X${'ab'.repeat(20)}`,
          `0x${'zz'.repeat(20)}`,
          '',
        ].map((bad): [string, () => unknown, () => unknown] => [
          `address ${JSON.stringify(bad)}`,
          () => encodeAllowance(lower, bad),
          () => ethersAbi.encodeFunctionData('allowance', [lower, bad]),
        ]),
        ...[`0x${'11'.repeat(31)}`, `0x${'11'.repeat(33)}`, '0x123', `0x${'zz'.repeat(32)}`].map(
          (bad): [string, () => unknown, () => unknown] => [
            `hash ${bad}`,
            () => encodeIsValidSignature(bad, '0x'),
            () => ethersAbi.encodeFunctionData('isValidSignature', [bad, '0x']),
          ],
        ),
        ...['0x123', '0xzz', '1234'].map((bad): [string, () => unknown, () => unknown] => [
          `signature ${bad}`,
          () => encodeIsValidSignature(`0x${'11'.repeat(32)}`, bad),
          () => ethersAbi.encodeFunctionData('isValidSignature', [`0x${'11'.repeat(32)}`, bad]),
        ]),
      ];
      for (const [what, ours, theirs] of cases) {
        const [a, b] = [thrown(ours), thrown(theirs)];
        expect(isError(b, 'INVALID_ARGUMENT'), `ethers refuses ${what}`).to.equal(true);
        expect(isError(a, 'INVALID_ARGUMENT'), `ours refuses ${what}`).to.equal(true);
      }
    });
  });

  describe('results', () => {
    const decoders: [AbiFunction, (result: unknown, fn: AbiFunction) => unknown][] = [
      ['balanceOf', decodeUint256],
      ['allowance', decodeUint256],
      ['transferFrom', decodeBool],
      ['isValidSignature', decodeBytes4],
    ];
    const decodeWithEthers = (fn: AbiFunction, result: unknown): unknown =>
      ethersAbi.decodeFunctionResult(fn, result as string)[0];

    /** Any word: small and large values, dirty bools, bytes4 with dirty padding. */
    const word = fc
      .oneof(
        bytes(32, 32),
        amount.map((v) => `0x${v.toString(16).padStart(64, '0')}`),
        fc.integer({ min: 0, max: 3 }).map((v) => `0x${v.toString(16).padStart(64, '0')}`),
        bytes(4, 4).map((b) => `${b}${'0'.repeat(56)}`),
      )
      .chain(anyCase);

    it('read a word as ethers decodeFunctionResult does', () => {
      fc.assert(
        fc.property(word, (result) => {
          expect(isAbiWord(result)).to.equal(true);
          for (const [fn, decode] of decoders) {
            expect(decode(result, fn), fn).to.deep.equal(decodeWithEthers(fn, result));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('read the first word of a longer answer, as ethers does', () => {
      fc.assert(
        fc.property(word, fc.integer({ min: 1, max: 4 }), (first, more) => {
          const result = `${first}${'ff'.repeat(32 * more)}`;
          expect(isAbiWord(result)).to.equal(false);
          for (const [fn, decode] of decoders) {
            expect(decode(result, fn), fn).to.deep.equal(decodeWithEthers(fn, result));
          }
        }),
        { numRuns: 100 },
      );
    });

    it('refuse malformed answers as ethers does, with the same error', () => {
      const malformed = fc.oneof(
        // Not a whole number of words (0x, the answer of an address without code, included).
        fc
          .integer({ min: 0, max: 100 })
          .filter((n) => n % 32 !== 0 || n === 0)
          .chain((n) => bytes(n, n))
          .chain(anyCase),
        // Not hex, odd digit counts, no prefix.
        fc.string({ maxLength: 80 }),
        bytes(32, 32).map((w) => w.slice(0, -1)),
        bytes(32, 32).map((w) => `${w.slice(0, 20)}g${w.slice(21)}`),
        bytes(32, 32).map((w) => w.slice(2)),
        // Not a string at all.
        fc.constantFrom(null, undefined, 0, 1, {}, []),
      );
      fc.assert(
        fc.property(malformed, (result) => {
          fc.pre(thrown(() => decodeWithEthers('balanceOf', result)) !== null);
          expect(isAbiWord(result)).to.equal(false);
          for (const [fn, decode] of decoders) {
            expectSameRefusal(
              thrown(() => decode(result, fn)),
              thrown(() => decodeWithEthers(fn, result)),
            );
          }
        }),
        { numRuns: 500 },
      );
      // An address without code answers '0x': BAD_DATA whose value the checks look for.
      const empty = thrown(() => decodeUint256('0x', 'balanceOf'));
      expect(isError(empty, 'BAD_DATA') && empty.value).to.equal('0x');
    });
  });
});
