/**
 * GPv2Settlement `settle` calldata (src/chain/settlement-call.ts): the trade flags and signature
 * bytes against what @cowprotocol/contracts defines, then real settlements on the devnet for
 * every signing scheme the contract verifies differently (ECDSA, EIP-1271, pre-signature).
 */
import { expect } from 'chai';
import {
  Contract,
  Interface,
  MaxUint256,
  Wallet,
  parseUnits,
  type TransactionReceipt,
} from 'ethers';
import {
  encodeSettle,
  encodeTradeSignature,
  settlementInterface,
  tradeFlags,
  type SettlementPlan,
} from '../../../src/chain/settlement-call.js';
import type { Address, Hex, OrderData, SigningScheme } from '../../../src/domain/events.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import {
  coincidenceOfWants,
  deployEip1271Wallet,
  orderIdentity,
  settleOrders,
  signTrade,
  type SignedTradeInput,
} from '../../support/settle.js';
import { EMPTY_APP_DATA_HASH } from '../../support/signing.js';

const ORDER: OrderData = {
  sellToken: '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  buyToken: '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  receiver: null,
  sellAmount: '1000',
  buyAmount: '900',
  validTo: 2_000_000_000,
  appData: EMPTY_APP_DATA_HASH,
  feeAmount: '3',
  kind: 'sell',
  partiallyFillable: false,
  sellTokenBalance: 'erc20',
  buyTokenBalance: 'erc20',
};
const OWNER: Address = '0x3333333333333333333333333333333333333333';
const ECDSA_SIGNATURE = `0x${'ab'.repeat(32)}${'cd'.repeat(32)}1c` as Hex;

describe('chain: settlement call encoding', () => {
  // Expected values read off @cowprotocol/contracts lib/esm/settlement.js `FLAG_MASKS`: each
  // field's value is the option's index in its list, shifted left by the field's offset.
  const KIND = { sell: 0, buy: 1 } as const; // offset 0: [SELL, BUY]
  const PARTIALLY_FILLABLE = { false: 0, true: 2 } as const; // offset 1: [false, true]
  const SELL_BALANCE = { erc20: 0, external: 8, internal: 12 } as const; // offset 2: [ERC20, -, EXTERNAL, INTERNAL]
  const BUY_BALANCE = { erc20: 0, internal: 16 } as const; // offset 4: [ERC20, INTERNAL]
  const SCHEME = { eip712: 0, ethsign: 32, eip1271: 64, presign: 96 } as const; // offset 5: [EIP712, ETHSIGN, EIP1271, PRESIGN]

  it('packs every kind, fillability, balance and signing scheme as GPv2Trade flags', () => {
    let combinations = 0;
    for (const kind of ['sell', 'buy'] as const)
      for (const partiallyFillable of [false, true])
        for (const sellTokenBalance of ['erc20', 'external', 'internal'] as const)
          for (const buyTokenBalance of ['erc20', 'internal'] as const)
            for (const scheme of ['eip712', 'ethsign', 'eip1271', 'presign'] as const) {
              const order = { kind, partiallyFillable, sellTokenBalance, buyTokenBalance };
              expect(tradeFlags(order, scheme), JSON.stringify({ ...order, scheme })).to.equal(
                KIND[kind] +
                  PARTIALLY_FILLABLE[`${partiallyFillable}`] +
                  SELL_BALANCE[sellTokenBalance] +
                  BUY_BALANCE[buyTokenBalance] +
                  SCHEME[scheme],
              );
              combinations++;
            }
    expect(combinations).to.equal(96);
  });

  it('spot-checks whole flag words', () => {
    expect(tradeFlags(ORDER, 'eip712')).to.equal(0);
    const all = { kind: 'buy', partiallyFillable: true, sellTokenBalance: 'internal' } as const;
    expect(tradeFlags({ ...all, buyTokenBalance: 'internal' }, 'presign')).to.equal(0b1111111);
    expect(tradeFlags({ ...ORDER, sellTokenBalance: 'external' }, 'eip1271')).to.equal(0b1001000);
  });

  it('passes ECDSA signatures through, raising v 0/1 to 27/28', () => {
    for (const scheme of ['eip712', 'ethsign'] as const) {
      expect(encodeTradeSignature(scheme, OWNER, ECDSA_SIGNATURE)).to.equal(ECDSA_SIGNATURE);
      const v0 = `${ECDSA_SIGNATURE.slice(0, -2)}00` as Hex;
      expect(encodeTradeSignature(scheme, OWNER, v0)).to.equal(`${v0.slice(0, -2)}1b`);
      const v1 = `${ECDSA_SIGNATURE.slice(0, -2)}01` as Hex;
      expect(encodeTradeSignature(scheme, OWNER, v1)).to.equal(`${v1.slice(0, -2)}1c`);
      expect(() => encodeTradeSignature(scheme, OWNER, '0x1234')).to.throw(/65 bytes/);
    }
  });

  it('prefixes EIP-1271 signatures with the owner and sends the owner alone for presign', () => {
    expect(encodeTradeSignature('eip1271', OWNER, '0xdeadbeef')).to.equal(`${OWNER}deadbeef`);
    expect(encodeTradeSignature('eip1271', OWNER, '0x')).to.equal(OWNER);
    expect(encodeTradeSignature('presign', OWNER, '0x')).to.equal(OWNER);
  });

  it('encodes settle with token indexes, the zero-address receiver and the interactions', () => {
    const interaction = { target: OWNER, value: '7', callData: '0x01' as Hex };
    const plan: SettlementPlan = {
      tokens: [ORDER.buyToken, `0x${ORDER.sellToken.slice(2).toUpperCase()}`],
      clearingPrices: [10n, 9n],
      trades: [
        {
          order: ORDER,
          sellTokenIndex: 1,
          buyTokenIndex: 0,
          owner: OWNER,
          signingScheme: 'eip1271',
          signature: '0xbeef',
          executedAmount: 5n,
        },
      ],
      interactions: { pre: [], intra: [interaction], post: [] },
    };
    const [tokens, prices, trades, interactions] = settlementInterface.decodeFunctionData(
      'settle',
      encodeSettle(plan),
    );
    expect(tokens.map((t: string) => t.toLowerCase())).to.deep.equal([
      ORDER.buyToken,
      ORDER.sellToken,
    ]);
    expect([...prices]).to.deep.equal([10n, 9n]);
    const [trade] = trades;
    expect(trade.sellTokenIndex).to.equal(1n);
    expect(trade.buyTokenIndex).to.equal(0n);
    expect(trade.receiver).to.equal('0x0000000000000000000000000000000000000000');
    expect([trade.sellAmount, trade.buyAmount, trade.feeAmount]).to.deep.equal([1000n, 900n, 3n]);
    expect(trade.validTo).to.equal(2_000_000_000n);
    expect(trade.appData).to.equal(EMPTY_APP_DATA_HASH);
    expect(trade.flags).to.equal(64n);
    expect(trade.executedAmount).to.equal(5n);
    expect(trade.signature).to.equal(`${OWNER}beef`);
    expect(interactions.map((stage: unknown[]) => stage.length)).to.deep.equal([0, 1, 0]);
    expect(interactions[1][0].value).to.equal(7n);
  });

  it('refuses a trade pointing at no price, or at another token’s', () => {
    const trade = {
      order: ORDER,
      sellTokenIndex: 0,
      buyTokenIndex: 1,
      owner: OWNER,
      signingScheme: 'presign' as const,
      signature: '0x' as Hex,
      executedAmount: 0n,
    };
    expect(() =>
      encodeSettle({ tokens: [ORDER.sellToken], clearingPrices: [1n], trades: [trade] }),
    ).to.throw(/token 1 of the settlement is not/);
    expect(() =>
      encodeSettle({
        tokens: [ORDER.buyToken, ORDER.sellToken],
        clearingPrices: [1n, 1n],
        trades: [trade],
      }),
    ).to.throw(/token 0 of the settlement is not/);
    expect(() =>
      encodeSettle({
        tokens: [ORDER.sellToken, ORDER.buyToken],
        clearingPrices: [1n],
        trades: [trade],
      }),
    ).to.throw(/clearing prices/);
  });
});

const ERC20 = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address spender, uint256 amount) returns (bool)',
]);
const EIP1271_MAGIC_VALUE = '0x1626ba7e';
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const units = (amount: string) => parseUnits(amount, 18);

describe('chain: settling orders on the devnet', () => {
  let chain: TestChain;
  let settlement: Address;
  let dusd: Address;
  let dcow: Address;
  let snapshot: string;

  before(async () => {
    chain = await sharedTestChain();
    settlement = chain.deployment.settlement;
    [dusd, dcow] = chain.deployment.tokens.map((t) => t.address) as [Address, Address];
  });
  // Every test leaves the shared chain as it found it.
  beforeEach(async () => {
    snapshot = await chain.snapshot();
  });
  afterEach(async () => {
    await chain.revert(snapshot);
  });

  const account = (i: number) =>
    new Wallet(chain.deployment.accounts[i]!.privateKey, chain.provider);
  const balanceOf = async (token: Address, owner: Address): Promise<bigint> =>
    new Contract(token, ERC20, chain.provider).getFunction('balanceOf')(owner);

  /** A fill-or-kill sell order valid for an hour of chain time. */
  async function sellOrder(
    sellToken: Address,
    buyToken: Address,
    sellAmount: bigint,
    buyAmount: bigint,
    feeAmount = 0n,
  ): Promise<OrderData> {
    const latest = await chain.provider.getBlock('latest');
    return {
      ...ORDER,
      sellToken,
      buyToken,
      sellAmount: String(sellAmount),
      buyAmount: String(buyAmount),
      feeAmount: String(feeAmount),
      validTo: latest!.timestamp + 3600,
    };
  }

  /** The settlement contract's logs in `receipt`, decoded. */
  function settlementLogs(receipt: TransactionReceipt) {
    return receipt.logs
      .filter((log) => log.address.toLowerCase() === settlement)
      .map((log) => settlementInterface.parseLog(log)!);
  }

  function expectTrade(
    receipt: TransactionReceipt,
    uid: Hex,
    expected: {
      owner: Address;
      sellToken: Address;
      buyToken: Address;
      sell: bigint;
      buy: bigint;
      fee: bigint;
    },
  ) {
    const log = settlementLogs(receipt).find((l) => l.name === 'Trade' && l.args.orderUid === uid);
    expect(log, `Trade log of ${uid}`).to.not.equal(undefined);
    const { owner, sellToken, buyToken, sellAmount, buyAmount, feeAmount } = log!.args;
    expect({
      owner: owner.toLowerCase(),
      sellToken: sellToken.toLowerCase(),
      buyToken: buyToken.toLowerCase(),
      sell: sellAmount,
      buy: buyAmount,
      fee: feeAmount,
    }).to.deep.equal(expected);
  }

  /** account 1's EIP-712 order on the other side of `order`, at exactly its limit price. */
  async function counterparty(order: OrderData): Promise<SignedTradeInput> {
    const mirror = await sellOrder(
      order.buyToken,
      order.sellToken,
      BigInt(order.buyAmount),
      BigInt(order.sellAmount),
    );
    return signTrade(chain, account(1), mirror);
  }

  async function expectRevert(promise: Promise<unknown>, reason: RegExp): Promise<void> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error, 'settle should revert').to.be.instanceOf(Error);
    expect(error!.message).to.match(reason);
  }

  it('settles two opposite EIP-712 orders as a coincidence of wants', async () => {
    const [alice, bob] = [account(0), account(1)];
    const a = await signTrade(
      chain,
      alice,
      await sellOrder(dusd, dcow, units('100'), units('40'), units('1')),
    );
    const b = await signTrade(chain, bob, await sellOrder(dcow, dusd, units('40'), units('99')));
    const holders = [a.owner, b.owner, settlement];
    const holdings = () =>
      Promise.all(
        holders.map(async (h) => ({
          dusd: await balanceOf(dusd, h),
          dcow: await balanceOf(dcow, h),
        })),
      );
    const before = await holdings();

    const receipt = await settleOrders(chain, coincidenceOfWants(a, b));

    expect(receipt.status).to.equal(1);
    const logs = settlementLogs(receipt);
    expect(logs.map((l) => l.name)).to.deep.equal(['Trade', 'Trade', 'Settlement']);
    expect(logs.find((l) => l.name === 'Settlement')!.args.solver.toLowerCase()).to.equal(
      chain.deployment.solver.address,
    );
    // a's sell amount includes its fee; b, buying at a's limit price, gets all of a's 100 DUSD.
    expectTrade(receipt, a.uid, {
      owner: a.owner,
      sellToken: dusd,
      buyToken: dcow,
      sell: units('101'),
      buy: units('40'),
      fee: units('1'),
    });
    expectTrade(receipt, b.uid, {
      owner: b.owner,
      sellToken: dcow,
      buyToken: dusd,
      sell: units('40'),
      buy: units('100'),
      fee: 0n,
    });

    const after = await holdings();
    const change = after.map((x, i) => ({
      dusd: x.dusd - before[i]!.dusd,
      dcow: x.dcow - before[i]!.dcow,
    }));
    expect(change).to.deep.equal([
      { dusd: -units('101'), dcow: units('40') }, // alice
      { dusd: units('100'), dcow: -units('40') }, // bob
      { dusd: units('1'), dcow: 0n }, // the settlement keeps alice's fee
    ]);
  });

  it('settles an ethsign order', async () => {
    const order = await sellOrder(dcow, dusd, units('5'), units('7'));
    const a = await signTrade(chain, account(0), order, 'ethsign');

    const receipt = await settleOrders(chain, coincidenceOfWants(a, await counterparty(order)));

    expectTrade(receipt, a.uid, {
      owner: a.owner,
      sellToken: dcow,
      buyToken: dusd,
      sell: units('5'),
      buy: units('7'),
      fee: 0n,
    });
  });

  describe('an order owned by an EIP-1271 wallet', () => {
    /**
     * A wallet owned by account 2 holding 100 DUSD, its sell order, and its vault-relayer
     * allowance given the way a real one would: by the owner, through `execute`.
     */
    async function walletOrder() {
      const owner = account(2);
      const wallet = await deployEip1271Wallet(chain, owner);
      await chain.fund(wallet.address, dusd, units('100'), { approve: 0n });
      const approve = ERC20.encodeFunctionData('approve', [
        chain.deployment.vaultRelayer,
        MaxUint256,
      ]);
      await (await wallet.contract.getFunction('execute')(dusd, 0n, approve)).wait();
      const order = await sellOrder(dusd, dcow, units('100'), units('40'));
      const { digest, uid } = orderIdentity(chain, order, wallet.address);
      return { owner, wallet, order, digest, uid };
    }

    it('settles with the owner’s signature of the order digest', async () => {
      const { owner, wallet, order, digest, uid } = await walletOrder();
      const signature = owner.signingKey.sign(digest).serialized as Hex;
      const trade = {
        order,
        owner: wallet.address,
        signingScheme: 'eip1271' as SigningScheme,
        signature,
      };

      const receipt = await settleOrders(
        chain,
        coincidenceOfWants(trade, await counterparty(order)),
      );

      expectTrade(receipt, uid, {
        owner: wallet.address,
        sellToken: dusd,
        buyToken: dcow,
        sell: units('100'),
        buy: units('40'),
        fee: 0n,
      });
      expect(await balanceOf(dusd, wallet.address)).to.equal(0n);
      expect(await balanceOf(dcow, wallet.address)).to.equal(units('40'));
    });

    it('makes settle revert when someone else signed', async () => {
      const { wallet, order, digest } = await walletOrder();
      const signature = account(3).signingKey.sign(digest).serialized as Hex;
      const trade = {
        order,
        owner: wallet.address,
        signingScheme: 'eip1271' as SigningScheme,
        signature,
      };

      await expectRevert(
        settleOrders(chain, coincidenceOfWants(trade, await counterparty(order))),
        /GPv2: invalid eip1271 signature/,
      );
    });

    it('answers isValidSignature with the magic value only for the owner’s canonical signature', async () => {
      const { owner, wallet, digest } = await walletOrder();
      const isValid = wallet.contract.getFunction('isValidSignature');
      const good = owner.signingKey.sign(digest);
      expect(await isValid(digest, good.serialized)).to.equal(EIP1271_MAGIC_VALUE);

      const stranger = account(3).signingKey.sign(digest).serialized;
      // The same signature in its high-s form (s → n − s, v flipped): ecrecover accepts it as
      // the owner's, the wallet must not.
      const highS = `${good.r}${(SECP256K1_N - BigInt(good.s)).toString(16).padStart(64, '0')}${good.v === 27 ? '1c' : '1b'}`;
      const badV = `${good.serialized.slice(0, -2)}1d`;
      for (const bad of [stranger, highS, badV, good.serialized.slice(0, -2), '0x']) {
        expect(await isValid(digest, bad), bad).to.equal('0xffffffff');
      }
      expect(await isValid(`0x${'00'.repeat(32)}`, good.serialized)).to.equal('0xffffffff');
    });
  });

  describe('a pre-signed order', () => {
    async function presigned(signed: boolean) {
      const owner = account(3);
      const order = await sellOrder(dusd, dcow, units('100'), units('40'));
      const { uid } = orderIdentity(chain, order, owner.address.toLowerCase() as Address);
      const onChain = new Contract(settlement, settlementInterface, owner);
      await (await onChain.getFunction('setPreSignature')(uid, true)).wait();
      if (!signed) await (await onChain.getFunction('setPreSignature')(uid, false)).wait();
      const trade: SignedTradeInput = {
        order,
        owner: owner.address.toLowerCase() as Address,
        signingScheme: 'presign',
        signature: '0x',
      };
      return { trade, uid, plan: coincidenceOfWants(trade, await counterparty(order)) };
    }

    it('settles once the owner called setPreSignature(uid, true)', async () => {
      const { trade, uid, plan } = await presigned(true);
      const receipt = await settleOrders(chain, plan);
      expectTrade(receipt, uid, {
        owner: trade.owner,
        sellToken: dusd,
        buyToken: dcow,
        sell: units('100'),
        buy: units('40'),
        fee: 0n,
      });
    });

    it('makes settle revert after setPreSignature(uid, false)', async () => {
      const { plan } = await presigned(false);
      await expectRevert(settleOrders(chain, plan), /GPv2: order not presigned/);
    });
  });
});
