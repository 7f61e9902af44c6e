import { expect } from 'chai';
import type { DomainEvent, OrderUid } from '../../../src/domain/events.js';
import {
  decideCancellation,
  evolve,
  foldOrder,
  latestPreSignature,
  statusInputs,
  type OrderState,
} from '../../../src/domain/lifecycle.js';
import { orderStatus } from '../../../src/domain/status.js';
import {
  OTHER,
  OWNER,
  cancelled,
  chainAt,
  placed,
  preSignature,
  reverted,
  sampleOrder,
  trade,
} from '../../property/arbitraries.js';

const UID: OrderUid = `0x${'01'.repeat(56)}`;
const UID2: OrderUid = `0x${'02'.repeat(56)}`;
const OPEN_AT = sampleOrder.validTo;
const SELL = BigInt(sampleOrder.sellAmount);
const BUY = BigInt(sampleOrder.buyAmount);

const fold = (events: DomainEvent[]): OrderState => {
  const state = foldOrder(events);
  if (state === null) throw new Error('expected a placed order');
  return state;
};
const statusOf = (events: DomainEvent[], now = OPEN_AT) =>
  orderStatus(statusInputs(fold(events)), now);

describe('order lifecycle', () => {
  describe('foldOrder', () => {
    it('is null until the order is placed', () => {
      expect(foldOrder([])).to.equal(null);
      expect(foldOrder([trade(UID, 1n, 1n), preSignature(UID, true, chainAt(1, 0))])).to.equal(
        null,
      );
    });

    it('starts open with nothing executed', () => {
      const state = fold([placed(UID)]);
      expect(state.placed.uid).to.equal(UID);
      expect(statusInputs(state)).to.deep.equal({
        kind: 'sell',
        sellAmount: SELL,
        buyAmount: BUY,
        validTo: sampleOrder.validTo,
        executedSellAmount: 0n,
        executedBuyAmount: 0n,
        executedFeeAmount: 0n,
        invalidated: false,
        presignaturePending: false,
      });
      expect(statusOf([placed(UID)])).to.equal('open');
    });

    it('sums trades and is fulfilled when a sell order sold exactly its amount net of fee', () => {
      const partial = [placed(UID), trade(UID, SELL / 2n + 5n, BUY / 2n, 5n)];
      expect(statusOf(partial)).to.equal('open');
      const done = [...partial, trade(UID, SELL / 2n, BUY / 2n, 0n, chainAt(2, 0))];
      const state = fold(done);
      expect(state.executedSellAmount).to.equal(SELL + 5n);
      expect(state.executedFeeAmount).to.equal(5n);
      expect(state.trades).to.have.length(2);
      expect(statusOf(done)).to.equal('fulfilled');
    });

    it('is fulfilled when a buy order bought exactly its amount', () => {
      const events = [placed(UID, { order: { kind: 'buy' } }), trade(UID, SELL / 3n, BUY)];
      expect(statusOf(events)).to.equal('fulfilled');
    });

    it('keeps the first signed cancellation, and every on-chain invalidation beside it', () => {
      const apiFirst = fold([
        placed(UID),
        cancelled(UID, 'api', OWNER),
        cancelled(UID, 'chain', OTHER),
        cancelled(UID, 'api', OTHER),
      ]);
      expect(apiFirst.cancellation?.by).to.equal(OWNER);
      expect(apiFirst.invalidations.map((c) => c.by)).to.deep.equal([OTHER]);

      const chainOnly = fold([placed(UID), cancelled(UID, 'chain', OTHER)]);
      expect(chainOnly.cancellation).to.equal(null);
      expect(statusOf([placed(UID), cancelled(UID, 'chain', OTHER)])).to.equal('cancelled');

      const apiOnly = fold([placed(UID), cancelled(UID, 'api')]);
      expect(apiOnly.invalidations).to.have.length(0);
      expect(statusOf([placed(UID), cancelled(UID, 'api')])).to.equal('cancelled');
    });

    it('follows the latest pre-signature by chain position, not by arrival', () => {
      const presign = placed(UID, { signingScheme: 'presign' });
      expect(statusOf([presign])).to.equal('presignaturePending');
      expect(statusOf([presign, preSignature(UID, true, chainAt(5, 1))])).to.equal('open');
      const revoked = [
        presign,
        preSignature(UID, false, chainAt(6, 0)),
        preSignature(UID, true, chainAt(5, 1)),
      ];
      expect(statusOf(revoked)).to.equal('presignaturePending');
      expect(latestPreSignature(fold(revoked))).to.equal(false);
      const sameBlock = [
        presign,
        preSignature(UID, true, chainAt(5, 3)),
        preSignature(UID, false, chainAt(5, 2)),
      ];
      expect(statusOf(sameBlock)).to.equal('open');
    });

    describe('after a reorg', () => {
      it('takes back a trade and the amounts it executed', () => {
        const fill = trade(UID, SELL, BUY, 0n, chainAt(3, 1));
        expect(statusOf([placed(UID), fill])).to.equal('fulfilled');
        const state = fold([placed(UID), fill, reverted(fill)]);
        expect(state.executedSellAmount).to.equal(0n);
        expect(state.trades).to.have.length(0);
        expect(statusOf([placed(UID), fill, reverted(fill)])).to.equal('open');
      });

      it('takes back only the reverted log, not another at the same height', () => {
        const one = trade(UID, SELL / 2n, BUY / 2n, 0n, chainAt(3, 1));
        const other = trade(UID, SELL / 2n, BUY / 2n, 0n, chainAt(3, 2));
        expect(fold([placed(UID), one, other, reverted(one)]).executedSellAmount).to.equal(
          SELL / 2n,
        );
      });

      it('restores the previous pre-signature when the latest one is reverted', () => {
        const presign = placed(UID, { signingScheme: 'presign' });
        const signed = preSignature(UID, true, chainAt(4, 0));
        const unsigned = preSignature(UID, false, chainAt(5, 0));
        expect(statusOf([presign, signed, unsigned, reverted(unsigned)])).to.equal('open');
        expect(statusOf([presign, signed, reverted(signed)])).to.equal('presignaturePending');
      });

      it('reopens an order whose on-chain invalidation is reverted, but not a signed cancellation', () => {
        const invalidation = cancelled(UID, 'chain', OWNER);
        expect(statusOf([placed(UID), invalidation, reverted(invalidation)])).to.equal('open');
        const both = [placed(UID), cancelled(UID, 'api'), invalidation, reverted(invalidation)];
        expect(statusOf(both)).to.equal('cancelled');
      });

      it('ignores a revert of a fact it never saw', () => {
        const fill = trade(UID, SELL, BUY, 0n, chainAt(3, 1));
        expect(fold([placed(UID), reverted(fill)]).executedSellAmount).to.equal(0n);
      });
    });

    it('counts a pre-signature recorded before the placement', () => {
      const events = [
        preSignature(UID, true, chainAt(1, 0)),
        placed(UID, { signingScheme: 'presign' }),
      ];
      expect(statusOf(events)).to.equal('open');
    });

    it('ignores pre-signatures for ECDSA orders and app-data events', () => {
      const appData: DomainEvent = {
        type: 'AppDataRegistered',
        data: {
          network: 'mainnet',
          hash: sampleOrder.appData,
          fullAppData: '{}',
          registeredAt: '',
        },
      };
      const state = fold([placed(UID)]);
      expect(evolve(state, appData)).to.equal(state);
      expect(statusOf([placed(UID), preSignature(UID, false, chainAt(1, 0))])).to.equal('open');
      expect(evolve(null, appData)).to.equal(null);
    });

    it('expires strictly after validTo', () => {
      expect(statusOf([placed(UID)], sampleOrder.validTo)).to.equal('open');
      expect(statusOf([placed(UID)], sampleOrder.validTo + 1)).to.equal('expired');
    });
  });

  describe('decideCancellation', () => {
    const open = fold([placed(UID)]);
    const now = OPEN_AT;
    const decide = (states: (OrderState | null)[], signer: string | null = OWNER) =>
      decideCancellation({
        orders: states.map((state, i) => ({ uid: i === 0 ? UID : UID2, state })),
        signer: signer as OrderUid | null,
        nowSeconds: now,
      });
    const errorOf = (states: (OrderState | null)[], signer: string | null = OWNER) => {
      const decision = decide(states, signer);
      return decision.ok ? null : decision.error.errorType;
    };

    it('cancels every listed order when the owner of all of them signed', () => {
      const second = fold([placed(UID2)]);
      expect(decide([open, second])).to.deep.equal({ ok: true, cancel: [UID, UID2] });
    });

    it('answers with the reference descriptions', () => {
      expect(decide([null])).to.deep.equal({
        ok: false,
        error: { errorType: 'OrderNotFound', description: 'Order not located in database' },
      });
      expect(decide([open], null)).to.deep.equal({
        ok: false,
        error: { errorType: 'InvalidSignature', description: 'Malformed signature' },
      });
      expect(decide([open], OTHER)).to.deep.equal({
        ok: false,
        error: {
          errorType: 'WrongOwner',
          description: "Signature recovery's owner doesn't match order's",
        },
      });
    });

    it('refuses orders that are not open, with the status-specific error', () => {
      const cases: [OrderState, string][] = [
        [fold([placed(UID), trade(UID, SELL, BUY)]), 'OrderFullyExecuted'],
        [fold([placed(UID), cancelled(UID, 'api')]), 'AlreadyCancelled'],
        [fold([placed(UID, { order: { validTo: now - 1 } })]), 'OrderExpired'],
        [fold([placed(UID, { signingScheme: 'presign' })]), 'OnChainOrder'],
        [fold([placed(UID, { signingScheme: 'eip1271' })]), 'OnChainOrder'],
      ];
      for (const [state, expected] of cases) expect(errorOf([state])).to.equal(expected);
      const signedPresign = fold([
        placed(UID, { signingScheme: 'presign' }),
        preSignature(UID, true, chainAt(1, 0)),
      ]);
      expect(errorOf([signedPresign])).to.equal('OnChainOrder');
      expect(errorOf([fold([placed(UID, { signingScheme: 'ethsign' })])])).to.equal(null);
    });

    it('checks order by order before the signature, and the signature before ownership', () => {
      const fulfilled = fold([placed(UID), trade(UID, SELL, BUY)]);
      expect(errorOf([fulfilled, null])).to.equal('OrderFullyExecuted');
      expect(errorOf([open, null])).to.equal('OrderNotFound');
      expect(errorOf([null], null)).to.equal('OrderNotFound');
      expect(errorOf([open, fulfilled], null)).to.equal('OrderFullyExecuted');
      const othersOrder = fold([placed(UID2, { owner: OTHER })]);
      expect(errorOf([open, othersOrder], null)).to.equal('InvalidSignature');
    });

    it('is all or nothing: one foreign order refuses the whole request', () => {
      const othersOrder = fold([placed(UID2, { owner: OTHER })]);
      expect(errorOf([open, othersOrder], OWNER)).to.equal('WrongOwner');
      expect(errorOf([open, othersOrder], OTHER)).to.equal('WrongOwner');
    });

    it('lists a UID repeated in the request once', () => {
      const decision = decideCancellation({
        orders: [
          { uid: UID, state: open },
          { uid: UID, state: open },
        ],
        signer: OWNER,
        nowSeconds: now,
      });
      expect(decision).to.deep.equal({ ok: true, cancel: [UID] });
    });
  });
});
