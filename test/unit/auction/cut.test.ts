/**
 * The cut's choices with stand-in reads (the chain and the read models are exercised by the
 * auction suites): in-flight orders stay out until the orders read model shows their fill,
 * filtered orders keep their reason, balances (and the vault relayer's allowances, where they
 * bound an order) are read once per owner and token.
 */
import { expect } from 'chai';
import { cutAuction, type CutDeps } from '../../../src/auction/cut.js';
import type { PriceEstimator } from '../../../src/chain/prices.js';
import type { Address, OrderUid } from '../../../src/domain/events.js';
import type { InFlightOrder } from '../../../src/queries/competitions.js';
import type { ApiOrder } from '../../../src/queries/order-view.js';

const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const DUSD: Address = '0x700b6a60ce7eaaea56f065753d8dcb9653dbad35';
const UNPRICED: Address = `0x${'9'.repeat(40)}`;
const OWNER: Address = `0x${'1'.repeat(40)}`;
const POOR: Address = `0x${'2'.repeat(40)}`;
/** Holds plenty, and lets the vault relayer pull none of it. */
const LOCKED: Address = `0x${'3'.repeat(40)}`;
/** An EIP-1271 owner contract that accepts no signature any more. */
const DISOWNED: Address = `0x${'4'.repeat(40)}`;
/** Holds 10 atoms of every token. */
const DUSTY: Address = `0x${'5'.repeat(40)}`;
const E18 = 10n ** 18n;
const TRAMPOLINE: Address = '0x60bf78233f48ec42ee3f101b9a05ec7878728006';

let n = 0;
function apiOrder(fields: Partial<ApiOrder> = {}): ApiOrder {
  const uid = `0x${(++n).toString(16).padStart(112, '0')}` as OrderUid;
  return {
    uid,
    owner: OWNER,
    sellToken: WETH,
    buyToken: DUSD,
    receiver: null,
    sellAmount: E18.toString(),
    buyAmount: (2900n * E18).toString(),
    validTo: 2_000_000_000,
    appData: `0x${'00'.repeat(32)}`,
    feeAmount: '0',
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    creationDate: '2026-11-22T12:00:00.000Z',
    class: 'limit',
    availableBalance: null,
    executedSellAmount: '0',
    executedSellAmountBeforeFees: '0',
    executedBuyAmount: '0',
    executedFeeAmount: '0',
    invalidated: false,
    status: 'open',
    isLiquidityOrder: false,
    executedFee: '0',
    executedFeeToken: WETH,
    fullAppData: '{}',
    settlementContract: '0x9008d19f58aabd9ed0d60971565aa8510560ab41',
    signingScheme: 'eip712',
    signature: `0x${'11'.repeat(65)}`,
    interactions: { pre: [], post: [] },
    ...fields,
  };
}

function deps(open: ApiOrder[], inFlight: InFlightOrder[] = []) {
  const reads: string[] = [];
  const allowanceReads: string[] = [];
  const signatureReads: string[] = [];
  const prices = {
    nativePrice: async (token: Address) =>
      token === UNPRICED ? null : token === WETH ? 1 : 1 / 3000,
  } as PriceEstimator;
  const cut: CutDeps = {
    solvable: async () => open,
    inFlight: async () => inFlight,
    prices,
    chain: {
      balanceOf: async (owner, token) => {
        reads.push(`${owner}/${token}`);
        return owner === POOR ? 0n : owner === DUSTY ? 10n : 10n * E18;
      },
      allowance: async (owner, token) => {
        allowanceReads.push(`${owner}/${token}`);
        return owner === LOCKED ? 0n : 2n ** 256n - 1n;
      },
      eip1271SignatureValid: async (owner, digest, signature) => {
        signatureReads.push(`${owner}/${digest}/${signature}`);
        return owner !== DISOWNED;
      },
    },
    blockNumber: async () => 42,
    validityMargin: 30,
    interactionTargets: { hooksTrampoline: TRAMPOLINE, ethFlowContracts: [] },
  };
  return { cut, reads, allowanceReads, signatureReads };
}

const uids = (orders: readonly { uid: OrderUid }[]) => orders.map((o) => o.uid);

describe('cutAuction', () => {
  it('leaves an in-flight order out until the orders read model shows the fill that ends it', async () => {
    const pending = apiOrder({ partiallyFillable: true });
    const applied = apiOrder({
      partiallyFillable: true,
      executedSellAmountBeforeFees: (E18 / 2n).toString(),
    });
    const inFlight = [
      { uid: pending.uid, filledAfter: (E18 / 2n).toString() },
      { uid: applied.uid, filledAfter: (E18 / 2n).toString() },
    ];
    const cut = await cutAuction(deps([pending, applied], inFlight).cut, new Date());
    expect(uids(cut.orders)).to.deep.equal([applied.uid]);
    expect(cut.filtered).to.deep.equal([]);
    expect(cut.solverOrders[0]).to.include({ uid: applied.uid, executed: E18 / 2n });
  });

  it('counts a buy order’s fill in buy atoms', async () => {
    const buy = apiOrder({ kind: 'buy', partiallyFillable: true, executedBuyAmount: '5' });
    const cut = await cutAuction(deps([buy], [{ uid: buy.uid, filledAfter: '6' }]).cut, new Date());
    expect(cut.orders).to.deep.equal([]);
  });

  it('filters unpriced and unfunded orders with their reason, reading each balance once', async () => {
    const fine = apiOrder();
    const alsoFine = apiOrder();
    const unpriced = apiOrder({ buyToken: UNPRICED });
    const poor = apiOrder({ owner: POOR });
    const { cut, reads } = deps([fine, alsoFine, unpriced, poor]);
    const result = await cutAuction(cut, new Date());
    expect(uids(result.orders)).to.deep.equal([fine.uid, alsoFine.uid]);
    expect(result.filtered).to.deep.equal([
      { uid: unpriced.uid, reason: 'MissingNativePrice' },
      { uid: poor.uid, reason: 'InsufficientBalance' },
    ]);
    expect(reads.sort()).to.deep.equal([`${OWNER}/${WETH}`, `${POOR}/${WETH}`].sort());
    expect(result.prices).to.deep.equal({
      [WETH]: E18.toString(),
      [DUSD]: String(Math.round(1e18 / 3000)),
    });
    expect(result.block).to.equal(42);
  });

  it('filters an order whose hooks do not go through the trampoline, before reading its balance', async () => {
    const call = (target: Address) => ({ target, value: '0', callData: '0x1234' as const });
    const trampolined = apiOrder({ interactions: { pre: [call(TRAMPOLINE)], post: [] } });
    // Placed before hooks went through the trampoline: its hook would run as the settlement.
    const raw = apiOrder({ owner: POOR, interactions: { pre: [], post: [call(DUSD)] } });
    const mixed = apiOrder({
      owner: POOR,
      interactions: { pre: [call(TRAMPOLINE)], post: [call(WETH)] },
    });
    const { cut, reads } = deps([trampolined, raw, mixed]);
    const result = await cutAuction(cut, new Date());
    expect(uids(result.orders)).to.deep.equal([trampolined.uid]);
    expect(result.filtered).to.deep.equal([
      { uid: raw.uid, reason: 'UntrampolinedInteractions' },
      { uid: mixed.uid, reason: 'UntrampolinedInteractions' },
    ]);
    expect(reads).to.deep.equal([`${OWNER}/${WETH}`]);
  });

  it('counts what the vault relayer may pull as the owner’s funds, unless a pre-hook or the Vault may provide it', async () => {
    const call = (target: Address) => ({ target, value: '0', callData: '0x1234' as const });
    const locked = apiOrder({ owner: LOCKED });
    const lockedDust = apiOrder({ owner: LOCKED, partiallyFillable: true });
    // A pre-hook may approve (an EIP-2612 permit); Vault balances are approved to the Vault.
    const permitted = apiOrder({
      owner: LOCKED,
      interactions: { pre: [call(TRAMPOLINE)], post: [] },
    });
    const fromVault = apiOrder({ owner: LOCKED, sellTokenBalance: 'external' });
    const lockedOtherToken = apiOrder({
      owner: LOCKED,
      sellToken: DUSD,
      buyToken: WETH,
      partiallyFillable: true,
    });
    const fine = apiOrder();
    const { cut, reads, allowanceReads } = deps([
      locked,
      lockedDust,
      permitted,
      fromVault,
      lockedOtherToken,
      fine,
    ]);
    const result = await cutAuction(cut, new Date());
    expect(uids(result.orders)).to.deep.equal([permitted.uid, fromVault.uid, fine.uid]);
    expect(result.filtered).to.deep.equal([
      { uid: locked.uid, reason: 'InsufficientBalance' },
      { uid: lockedDust.uid, reason: 'InsufficientBalance' },
      { uid: lockedOtherToken.uid, reason: 'InsufficientBalance' },
    ]);
    const keys = [`${LOCKED}/${WETH}`, `${LOCKED}/${DUSD}`, `${OWNER}/${WETH}`].sort();
    expect(reads.sort()).to.deep.equal(keys);
    expect(allowanceReads.sort()).to.deep.equal(keys);
  });

  it('asks EIP-1271 owners again and filters the orders whose signature they refuse, unless a pre-hook may set it up', async () => {
    const call = (target: Address) => ({ target, value: '0', callData: '0x1234' as const });
    const signed = {
      signingScheme: 'eip1271' as const,
      signature: `0x${'ab'.repeat(40)}` as const,
    };
    const accepted = apiOrder({ ...signed });
    const refused = apiOrder({ ...signed, owner: DISOWNED });
    const hooked = apiOrder({
      ...signed,
      owner: DISOWNED,
      interactions: { pre: [call(TRAMPOLINE)], post: [] },
    });
    const ecdsa = apiOrder({ owner: DISOWNED });
    const { cut, signatureReads } = deps([accepted, refused, hooked, ecdsa]);
    const result = await cutAuction(cut, new Date());
    expect(uids(result.orders)).to.deep.equal([accepted.uid, hooked.uid, ecdsa.uid]);
    expect(result.filtered).to.deep.equal([{ uid: refused.uid, reason: 'InvalidSignature' }]);
    // Asked about the order's digest, the UID's first 32 bytes, with the order's signature.
    expect(signatureReads.sort()).to.deep.equal(
      [accepted, refused].map((o) => `${o.owner}/${o.uid.slice(0, 66)}/${signed.signature}`).sort(),
    );
  });

  it('filters a partially fillable order with only dust left, of what is unfilled or of what its owner holds', async () => {
    // 3,000 atoms for at least 3: fewer than 1,000 left to sell buys nothing.
    const lopsided = { sellAmount: '3000', buyAmount: '3', partiallyFillable: true };
    const filledToDust = apiOrder({ ...lopsided, executedSellAmountBeforeFees: '2001' });
    const filledNotDust = apiOrder({ ...lopsided, executedSellAmountBeforeFees: '2000' });
    const fundedToDust = apiOrder({ ...lopsided, owner: DUSTY });
    // 10 atoms held, for an order paying 1 atom per sold atom: 10 left to buy, not dust.
    const funded = apiOrder({
      sellAmount: '3000',
      buyAmount: '3000',
      partiallyFillable: true,
      owner: DUSTY,
    });
    // A buy order counts its fill in buy atoms: 1 left of 3,000 sells nothing at this ratio.
    const buyToDust = apiOrder({
      kind: 'buy',
      sellAmount: '1',
      buyAmount: '3000',
      partiallyFillable: true,
      executedBuyAmount: '2999',
    });
    const fillOrKill = apiOrder({ sellAmount: '3000', buyAmount: '1' });
    const { cut } = deps([
      filledToDust,
      filledNotDust,
      fundedToDust,
      funded,
      buyToDust,
      fillOrKill,
    ]);
    const result = await cutAuction(cut, new Date());
    expect(uids(result.orders)).to.deep.equal([filledNotDust.uid, funded.uid, fillOrKill.uid]);
    expect(result.filtered).to.deep.equal(
      [filledToDust, fundedToDust, buyToDust].map((o) => ({ uid: o.uid, reason: 'DustOrder' })),
    );
  });
});
