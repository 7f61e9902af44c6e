import { expect } from 'chai';
import { keccak256, toUtf8Bytes } from 'ethers';
import fc from 'fast-check';
import {
  EMPTY_APP_DATA_DOCUMENT,
  ZERO_APP_DATA_HASH,
  appDataHash,
  validateAppData,
  validateNewAppData,
  type AppDataValidation,
} from '../../../src/domain/app-data.js';

const LIMIT = 8192;
const UID = `0x${'ab'.repeat(56)}`;
const A = '0x0101010101010101010101010101010101010101';

const validate = (doc: unknown): AppDataValidation => validateAppData(JSON.stringify(doc), LIMIT);
const withMetadata = (metadata: unknown) => validate({ appCode: 'test', metadata });

function expectInvalid(result: AppDataValidation, mentioning: string): void {
  expect(result.ok, JSON.stringify(result)).to.equal(false);
  if (!result.ok) expect(result.reason).to.contain(mentioning);
}

describe('app data', () => {
  describe('appDataHash', () => {
    it('is keccak("{}") for the empty document', () => {
      expect(appDataHash(EMPTY_APP_DATA_DOCUMENT)).to.equal(
        '0xb48d38f93eaa084033fc5970bf96e559c33c4cdc07d889ab00b4d63f9590739d',
      );
      expect(ZERO_APP_DATA_HASH).to.equal(`0x${'00'.repeat(32)}`);
    });

    it('hashes the exact UTF-8 bytes: whitespace and key order matter', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme' }), (doc) => {
          expect(appDataHash(doc)).to.equal(keccak256(toUtf8Bytes(doc)));
        }),
        { numRuns: 50 },
      );
      expect(appDataHash('{"a":1,"b":2}')).to.not.equal(appDataHash('{"b":2,"a":1}'));
      expect(appDataHash('{}')).to.not.equal(appDataHash('{ }'));
    });
  });

  describe('validateAppData', () => {
    it('accepts documents without protocol keys, ignoring other keys', () => {
      for (const doc of ['{}', '{"hello":"world"}', '{"metadata":{}}', '{"metadata":null}']) {
        const result = validateAppData(doc, LIMIT);
        expect(result, doc).to.deep.equal({
          ok: true,
          appData: { hooks: { pre: [], post: [] }, enableFastPath: false, hasWrappers: false },
        });
      }
      expect(
        withMetadata({ quote: { slippageBips: '50' }, orderClass: { orderClass: 'market' } }).ok,
      ).to.equal(true);
    });

    it('measures the size limit in UTF-8 bytes, inclusive', () => {
      const doc = (n: number) => `{"a":"${'é'.repeat(n)}"}`; // é is 2 bytes
      const exact = doc((LIMIT - 8) / 2);
      expect(Buffer.byteLength(exact)).to.equal(LIMIT);
      expect(validateAppData(exact, LIMIT).ok).to.equal(true);
      expectInvalid(validateAppData(doc((LIMIT - 8) / 2 + 1), LIMIT), 'larger than limit 8192');
    });

    it('rejects non-JSON, non-objects and text that is not valid UTF-8', () => {
      expectInvalid(validateAppData('hello world', LIMIT), 'invalid app data json');
      expectInvalid(validateAppData('[]', LIMIT), 'expected an object');
      expectInvalid(validateAppData('"{}"', LIMIT), 'expected an object');
      expectInvalid(validateAppData('null', LIMIT), 'expected an object');
      expectInvalid(validateAppData('{"a":"\ud800"}', LIMIT), 'UTF-8');
      expectInvalid(validate({ metadata: [1] }), 'metadata');
    });

    it('parses hooks with decimal string gas limits', () => {
      const result = withMetadata({
        hooks: {
          pre: [{ target: A, callData: '0x', gasLimit: '21000' }],
          post: [
            { target: A.toUpperCase().replace('0X', '0x'), callData: '0xABcd', gasLimit: '+1' },
          ],
        },
      });
      expect(result).to.deep.equal({
        ok: true,
        appData: {
          hooks: {
            pre: [{ target: A, callData: '0x', gasLimit: 21000n }],
            post: [{ target: A, callData: '0xabcd', gasLimit: 1n }],
          },
          enableFastPath: false,
          hasWrappers: false,
        },
      });
    });

    it('names the malformed hook field', () => {
      const hook = { target: A, callData: '0x', gasLimit: '1' };
      const cases: [unknown, string][] = [
        [{ pre: [{ ...hook, gasLimit: 21000 }] }, 'metadata.hooks.pre[0].gasLimit'],
        [
          { pre: [{ ...hook, gasLimit: '18446744073709551616' }] },
          'metadata.hooks.pre[0].gasLimit',
        ],
        [{ pre: [{ ...hook, gasLimit: '-1' }] }, 'metadata.hooks.pre[0].gasLimit'],
        [{ post: [hook, { ...hook, callData: 'abcd' }] }, 'metadata.hooks.post[1].callData'],
        [{ pre: [{ ...hook, target: '0x1234' }] }, 'metadata.hooks.pre[0].target'],
        [{ pre: {} }, 'metadata.hooks.pre'],
        [{ pre: null }, 'metadata.hooks.pre'],
        [null, 'metadata.hooks'],
        [[], 'metadata.hooks'],
      ];
      for (const [hooks, path] of cases) expectInvalid(withMetadata({ hooks }), path);
      expect(
        withMetadata({ hooks: { pre: [{ ...hook, gasLimit: '18446744073709551615' }] } }).ok,
      ).to.equal(true);
    });

    it('parses signer, replacedOrder, validFrom, enableFastPath and wrappers', () => {
      const result = withMetadata({
        signer: A.slice(2),
        replacedOrder: { uid: UID.toUpperCase().replace('0X', '0x') },
        validFrom: 4294967295,
        enableFastPath: true,
        wrappers: [{ address: A, data: '0x01', isOmittable: true }],
      });
      expect(result).to.deep.equal({
        ok: true,
        appData: {
          hooks: { pre: [], post: [] },
          signer: A,
          replacedOrder: UID,
          validFrom: 4294967295,
          enableFastPath: true,
          hasWrappers: true,
        },
      });
      const empty = withMetadata({ wrappers: [] });
      expect(empty.ok && empty.appData.hasWrappers).to.equal(false);
    });

    it('treats null as unset only for the optional keys', () => {
      const result = withMetadata({
        signer: null,
        replacedOrder: null,
        validFrom: null,
        flashloan: null,
      });
      expect(result.ok).to.equal(true);
      for (const key of ['hooks', 'partnerFee', 'wrappers', 'enableFastPath']) {
        expectInvalid(withMetadata({ [key]: null }), `metadata.${key}`);
      }
    });

    it('names each malformed protocol value', () => {
      const cases: [unknown, string][] = [
        [{ signer: '0x12' }, 'metadata.signer'],
        [{ replacedOrder: { uid: UID.slice(2) } }, 'metadata.replacedOrder.uid'],
        [{ replacedOrder: UID }, 'metadata.replacedOrder'],
        [{ validFrom: -1 }, 'metadata.validFrom'],
        [{ validFrom: 4294967296 }, 'metadata.validFrom'],
        [{ validFrom: 1.5 }, 'metadata.validFrom'],
        [{ validFrom: '100' }, 'metadata.validFrom'],
        [{ enableFastPath: 'true' }, 'metadata.enableFastPath'],
        [{ wrappers: {} }, 'metadata.wrappers'],
        [{ wrappers: [{ address: A, data: 'zz' }] }, 'metadata.wrappers[0].data'],
        [
          { wrappers: [{ address: A, data: '0x', isOmittable: 1 }] },
          'metadata.wrappers[0].isOmittable',
        ],
        [{ partnerFee: { bps: -1, recipient: A } }, 'metadata.partnerFee'],
        [{ partnerFee: { volumeBps: 10 } }, 'metadata.partnerFee.recipient'],
        [
          {
            partnerFee: [
              { volumeBps: 1, recipient: A },
              { surplusBps: 1, recipient: A },
            ],
          },
          'metadata.partnerFee[1]',
        ],
        [{ flashloan: { liquidityProvider: A } }, 'metadata.flashloan.protocolAdapter'],
      ];
      for (const [metadata, path] of cases) expectInvalid(withMetadata(metadata), path);
    });

    it('accepts every partner fee form, alone or in a list', () => {
      const forms = [
        { volumeBps: 10, recipient: A },
        { bps: 10, recipient: A },
        { surplusBps: 10, maxVolumeBps: 100, recipient: A },
        { priceImprovementBps: 10, maxVolumeBps: 100, recipient: A },
      ];
      for (const fee of forms)
        expect(withMetadata({ partnerFee: fee }).ok, JSON.stringify(fee)).to.equal(true);
      expect(withMetadata({ partnerFee: forms }).ok).to.equal(true);
    });

    it('accepts a well-formed flashloan with a hex or decimal amount', () => {
      const loan = { liquidityProvider: A, protocolAdapter: A, receiver: A, token: A };
      expect(withMetadata({ flashloan: { ...loan, amount: '1000' } }).ok).to.equal(true);
      expect(withMetadata({ flashloan: { ...loan, amount: '0x3e8' } }).ok).to.equal(true);
      expectInvalid(
        withMetadata({ flashloan: { ...loan, amount: 1000 } }),
        'metadata.flashloan.amount',
      );
    });

    it('uses legacy backend.hooks only when metadata is absent, but always checks them', () => {
      const backend = { hooks: { pre: [{ target: A, callData: '0x01', gasLimit: '5' }] } };
      const legacy = validate({ backend });
      expect(legacy.ok && legacy.appData.hooks.pre).to.deep.equal([
        { target: A, callData: '0x01', gasLimit: 5n },
      ]);
      const shadowed = validate({ backend, metadata: {} });
      expect(shadowed.ok && shadowed.appData.hooks.pre).to.deep.equal([]);
      expectInvalid(
        validate({ metadata: {}, backend: { hooks: { pre: 1 } } }),
        'backend.hooks.pre',
      );
      expectInvalid(validate({ backend: 'x' }), 'backend');
    });

    it('never throws on hostile input', () => {
      const protocolish = fc.dictionary(
        fc.constantFrom(
          'hooks',
          'signer',
          'replacedOrder',
          'partnerFee',
          'flashloan',
          'wrappers',
          'enableFastPath',
          'validFrom',
        ),
        fc.jsonValue(),
      );
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string(),
            fc.json(),
            protocolish.map((m) => JSON.stringify({ metadata: m })),
          ),
          (doc) => {
            const result = validateAppData(doc, LIMIT);
            expect(result.ok || typeof result.reason === 'string').to.equal(true);
          },
        ),
        { numRuns: 300 },
      );
      expect(validateAppData(42 as never, LIMIT).ok).to.equal(false);
    });
  });

  describe('validateNewAppData', () => {
    it('refuses a key repeated in one object, at any depth and however it is spelled', () => {
      for (const [doc, key] of [
        ['{"a":1,"a":1}', 'a'],
        ['{"metadata":{"quote":{},"x":[{"k":1,"k":2}]}}', 'k'],
        ['{"a\\u0062":1,"ab":2}', 'ab'],
        ['{"x":"{\\"y\\":1,\\"y\\":2}","y":{},"z":[1,{"y":3}]}', null],
        ['{"a":{"b":1},"c":{"b":2}}', null],
      ] as [string, string | null][]) {
        const result = validateNewAppData(doc, LIMIT);
        if (key === null) expect(result.ok, doc).to.equal(true);
        else expectInvalid(result, `duplicate key ${JSON.stringify(key)}`);
        // Documents already accepted are read as before: the last value of a repeated key.
        expect(validateAppData(doc, LIMIT).ok, doc).to.equal(true);
      }
    });

    it('finds a repeated key in any JSON document, and none where JSON.stringify wrote it', () => {
      const unlimited = Number.POSITIVE_INFINITY;
      fc.assert(
        fc.property(
          fc.json(),
          fc.string({ maxLength: 4 }),
          fc.jsonValue(),
          fc.jsonValue(),
          (inner, key, first, second) => {
            expect(validateNewAppData(`{"doc":${inner}}`, unlimited).ok, inner).to.equal(true);
            const member = (value: unknown) => `${JSON.stringify(key)}:${JSON.stringify(value)}`;
            const repeated = `{"doc":${inner},"x":{${member(first)},${member(second)}}}`;
            expectInvalid(
              validateNewAppData(repeated, unlimited),
              `duplicate key ${JSON.stringify(key)}`,
            );
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
