import { expect } from 'chai';
import { TypedDataEncoder, ZeroAddress } from 'ethers';
import fc from 'fast-check';
import {
  CANCELLATIONS_TYPE_HASH,
  CANCELLATION_TYPE_HASH,
  ORDER_TYPE_HASH,
  cancellationDigest,
  cancellationsDigest,
  computeOrderUid,
  domainSeparator,
  orderDigest,
  splitOrderUid,
} from '../../../src/domain/eip712.js';
import type { OrderData } from '../../../src/domain/events.js';
import { bytesToHex } from '../../../src/bytes/hex.js';
import { NETWORKS, SETTLEMENT_CONTRACT } from '../../../src/domain/networks.js';
import { ORDER_TYPES, domain } from '../../support/signing.js';
import { address, hexBytes, orderData, sampleOrder } from '../../property/arbitraries.js';

const ethersOrder = (order: OrderData) => ({ ...order, receiver: order.receiver ?? ZeroAddress });

describe('eip712', () => {
  describe('constants', () => {
    it('has the reference type hashes', () => {
      expect(bytesToHex(ORDER_TYPE_HASH)).to.equal(
        '0xd5a25ba2e97094ad7d83dc28a6572da797d6b3e7fc6663bd93efb789fc17e489',
      );
      expect(bytesToHex(CANCELLATION_TYPE_HASH)).to.equal(
        '0x7b41b3a6e2b3cae020a3b2f9cdc997e0d420643957e7fea81747e984e47c88ec',
      );
      expect(bytesToHex(CANCELLATIONS_TYPE_HASH)).to.equal(
        '0x4c89efb91ae246f78d2fe68b47db2fa1444a121a4f2dc3fda7a5a408c2e3588e',
      );
    });

    it('matches the domain separator table of reference §4.2', () => {
      const table: [number, string][] = [
        [1, '0xc078f884a2676e1345748b1feace7b0abee5d00ecadb6e574dcdd109a63e8943'],
        [100, '0x8f05589c4b810bc2f706854508d66d447cd971f8354a4bb0b3471ceb0a466bc7'],
        [11155111, '0xdaee378bd0eb30ddf479272accf91761e697bc00e067a268f95f1d2732ed230b'],
        [42161, '0x69d78e7a7cafcaf924483f99f65e8f4e303a99a446db7ab319f9d40e940bced2'],
        [8453, '0xd72ffa789b6fae41254d0b5a13e6e1e92ed947ec6a251edf1cf0b6c02c257b4b'],
      ];
      for (const [chainId, expected] of table) {
        expect(
          bytesToHex(domainSeparator(chainId, SETTLEMENT_CONTRACT)),
          `chain ${chainId}`,
        ).to.equal(expected);
      }
    });

    it('gives every network the separator ethers computes, for any spelling of the contract', () => {
      for (const network of NETWORKS) {
        const expected = TypedDataEncoder.hashDomain(domain(network.chainId));
        expect(bytesToHex(domainSeparator(network.chainId, network.settlementContract))).to.equal(
          expected,
        );
      }
      const checksummed = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';
      expect(domainSeparator(1, checksummed)).to.equal(domainSeparator(1, SETTLEMENT_CONTRACT));
    });
  });

  describe('orderDigest', () => {
    it('equals ethers TypedDataEncoder.hash for random orders and chains', () => {
      fc.assert(
        fc.property(orderData, fc.constantFrom(...NETWORKS), (order, network) => {
          const ours = orderDigest(order, domainSeparator(network.chainId, SETTLEMENT_CONTRACT));
          const theirs = TypedDataEncoder.hash(
            domain(network.chainId),
            ORDER_TYPES,
            ethersOrder(order),
          );
          expect(bytesToHex(ours)).to.equal(theirs);
        }),
        { numRuns: 200 },
      );
    });

    it('signs a null receiver as the zero address', () => {
      const separator = domainSeparator(1, SETTLEMENT_CONTRACT);
      expect(orderDigest({ ...sampleOrder, receiver: null }, separator)).to.deep.equal(
        orderDigest({ ...sampleOrder, receiver: ZeroAddress as `0x${string}` }, separator),
      );
    });

    it('reads hex amounts as their value', () => {
      const separator = domainSeparator(1, SETTLEMENT_CONTRACT);
      const hex = { ...sampleOrder, sellAmount: '0xf4240' };
      expect(orderDigest(hex, separator)).to.deep.equal(orderDigest(sampleOrder, separator));
    });

    it('refuses malformed fields instead of hashing something else', () => {
      const separator = domainSeparator(1, SETTLEMENT_CONTRACT);
      const bad: Partial<OrderData>[] = [
        { sellToken: '0x1234' },
        { buyToken: `0x${'zz'.repeat(20)}` },
        { appData: '0x00' },
        { sellAmount: (1n << 256n).toString() },
        { buyAmount: '-1' },
        { validTo: 2 ** 32 },
        { validTo: 1.5 },
        { kind: 'swap' as never },
        { sellTokenBalance: 'vault' as never },
      ];
      for (const patch of bad) {
        expect(
          () => orderDigest({ ...sampleOrder, ...patch }, separator),
          JSON.stringify(patch),
        ).to.throw();
      }
    });
  });

  describe('order UID', () => {
    it('is digest ‖ owner ‖ validTo big-endian, lowercase', () => {
      const digest = new Uint8Array(32).fill(0xab);
      const uid = computeOrderUid(digest, '0x9008D19f58AAbD9eD0D60971565AA8510560ab41', 0x01020304);
      expect(uid).to.equal(`0x${'ab'.repeat(32)}9008d19f58aabd9ed0d60971565aa8510560ab4101020304`);
      expect(splitOrderUid(uid)).to.deep.equal({
        digest: `0x${'ab'.repeat(32)}`,
        owner: '0x9008d19f58aabd9ed0d60971565aa8510560ab41',
        validTo: 0x01020304,
      });
    });

    it('round-trips through splitOrderUid for any parts', () => {
      fc.assert(
        fc.property(
          hexBytes(32),
          address,
          fc.nat({ max: 0xffffffff }),
          (digest, owner, validTo) => {
            const bytes = Buffer.from(digest.slice(2), 'hex');
            const uid = computeOrderUid(bytes, owner, validTo);
            expect(uid).to.have.length(2 + 112);
            expect(splitOrderUid(uid)).to.deep.equal({ digest, owner, validTo });
          },
        ),
        { numRuns: 100 },
      );
    });

    it('refuses a validTo outside uint32', () => {
      expect(() => computeOrderUid(new Uint8Array(32), sampleOrder.sellToken, -1)).to.throw(
        RangeError,
      );
      expect(() => computeOrderUid(new Uint8Array(32), sampleOrder.sellToken, 2 ** 32)).to.throw(
        RangeError,
      );
    });
  });

  describe('cancellations', () => {
    const separator = domainSeparator(1, SETTLEMENT_CONTRACT);

    it('hashes OrderCancellations(bytes[] orderUids) as ethers does', () => {
      fc.assert(
        fc.property(fc.array(hexBytes(56), { maxLength: 5 }), (uids) => {
          const theirs = TypedDataEncoder.hash(
            domain(1),
            { OrderCancellations: [{ name: 'orderUids', type: 'bytes[]' }] },
            { orderUids: uids },
          );
          expect(bytesToHex(cancellationsDigest(uids, separator))).to.equal(theirs);
        }),
        { numRuns: 50 },
      );
    });

    it('hashes OrderCancellation(bytes orderUid) as ethers does', () => {
      const uid = `0x${'12'.repeat(56)}` as const;
      const theirs = TypedDataEncoder.hash(
        domain(1),
        { OrderCancellation: [{ name: 'orderUid', type: 'bytes' }] },
        { orderUid: uid },
      );
      expect(bytesToHex(cancellationDigest(uid, separator))).to.equal(theirs);
      // The two forms sign different messages: a bulk signature must not pass as a single one.
      expect(cancellationDigest(uid, separator)).to.not.deep.equal(
        cancellationsDigest([uid], separator),
      );
    });

    it('refuses a UID that is not 56 bytes of hex', () => {
      expect(() => cancellationsDigest([`0x${'12'.repeat(55)}`], separator)).to.throw(TypeError);
      expect(() => cancellationDigest(`0x${'zz'.repeat(56)}`, separator)).to.throw(TypeError);
    });
  });
});
