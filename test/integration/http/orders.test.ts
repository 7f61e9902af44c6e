/**
 * POST /api/v1/orders end to end over HTTP: accepted orders (every signing scheme), the chain-free
 * rules of reference §4.1 with the seed's codes, and that a rejection writes nothing.
 */
import { expect } from 'chai';
import { Wallet } from 'ethers';
import { documentedHttp } from '../../support/openapi.js';
import { startTestService, type TestService } from '../../support/service.js';
import {
  CHAIN_ID,
  TOKENS,
  newWallet,
  nowSeconds,
  presignOrder,
  signOrder,
  type OrderParams,
  type SignOrderOptions,
} from '../../support/signing.js';
import { fundedWallet } from '../../support/owners.js';

type ErrorBody = { errorType: string; description: string };
type Order = Record<string, unknown>;

const DENIED = '0x00000000000000000000000000000000000000de';
const NATIVE = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

describe('HTTP: placing orders', () => {
  let service: TestService;
  let orders: string;
  before(async () => {
    service = await startTestService({ env: { DENY_LIST_ACCOUNTS: DENIED } });
    orders = `${service.devnet}/api/v1/orders`;
  });
  after(() => service.stop());

  async function place(body: unknown) {
    return documentedHttp<string | ErrorBody>('POST', orders, body);
  }

  async function rejected(
    overrides: Partial<OrderParams>,
    errorType: string,
    options: SignOrderOptions = {},
  ) {
    const before = (await service.ledger.readAll(null, 10_000)).length;
    const signed = await signOrder(
      await fundedWallet(),
      CHAIN_ID.devnet,
      overrides,
      'eip712',
      options,
    );
    const response = await place(signed.body);
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect((response.body as ErrorBody).errorType).to.equal(errorType);
    expect((await service.ledger.readAll(null, 10_000)).length, 'ledger grew').to.equal(before);
    return response.body as ErrorBody;
  }

  it('accepts an EIP-712 order: 201 with the UID, readable at once with every field', async () => {
    const wallet = await fundedWallet();
    const signed = await signOrder(wallet, CHAIN_ID.devnet, { receiver: TOKENS.USDC });
    const response = await place(signed.body);
    expect(response.status).to.equal(201);
    expect(response.body).to.equal(signed.uid);

    const read = await documentedHttp<Order>('GET', `${orders}/${signed.uid}`);
    expect(read.status).to.equal(200);
    expect(read.body).to.include({
      uid: signed.uid,
      owner: wallet.address.toLowerCase(),
      sellToken: TOKENS.WETH.toLowerCase(),
      buyToken: TOKENS.DAI.toLowerCase(),
      receiver: TOKENS.USDC.toLowerCase(),
      sellAmount: signed.order.sellAmount,
      buyAmount: signed.order.buyAmount,
      validTo: signed.order.validTo,
      appData: signed.appDataHash,
      fullAppData: '{}',
      feeAmount: '0',
      kind: 'sell',
      partiallyFillable: false,
      signingScheme: 'eip712',
      signature: (signed.body.signature as string).toLowerCase(),
      class: 'limit',
      status: 'open',
      invalidated: false,
      executedSellAmount: '0',
      executedBuyAmount: '0',
      settlementContract: '0x9008d19f58aabd9ed0d60971565aa8510560ab41',
    });
    expect(Date.parse(read.body.creationDate as string)).to.be.closeTo(Date.now(), 60_000);
  });

  it('reads an order by its UID and its owner in any case, a capital 0X prefix too', async () => {
    const wallet = await fundedWallet();
    const signed = await signOrder(wallet, CHAIN_ID.devnet);
    expect((await place(signed.body)).status).to.equal(201);
    const digits = signed.uid.slice(2).toUpperCase();
    for (const form of [`0X${digits}`, `0x${digits}`, digits]) {
      const read = await documentedHttp<Order>('GET', `${orders}/${form}`);
      expect(read.status, `${form}: ${read.text}`).to.equal(200);
      expect(read.body.uid).to.equal(signed.uid);
    }
    const owner = `0X${wallet.address.slice(2).toUpperCase()}`;
    const listed = await documentedHttp<Order[]>(
      'GET',
      `${service.devnet}/api/v1/account/${owner}/orders`,
    );
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.body.map((order) => order.uid)).to.deep.equal([signed.uid]);
  });

  it('accepts an ethsign order', async () => {
    const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, {}, 'ethsign');
    const response = await place(signed.body);
    expect(response.status).to.equal(201);
    const read = await documentedHttp<Order>('GET', `${orders}/${signed.uid}`);
    expect(read.body.signingScheme).to.equal('ethsign');
  });

  it('accepts the legacy hash form of appData for a registered or empty document', async () => {
    const wallet = await fundedWallet();
    const empty = await signOrder(wallet, CHAIN_ID.devnet, {}, 'eip712', { appDataForm: 'hash' });
    expect((await place(empty.body)).status).to.equal(201);

    const document = '{"appCode":"registered-first"}';
    const put = await documentedHttp('PUT', `${service.devnet}/api/v1/app_data`, {
      fullAppData: document,
    });
    expect(put.status).to.equal(201);
    const registered = await signOrder(wallet, CHAIN_ID.devnet, { appData: document }, 'eip712', {
      appDataForm: 'hash',
    });
    expect((await place(registered.body)).status).to.equal(201);
    const read = await documentedHttp<Order>('GET', `${orders}/${registered.uid}`);
    expect(read.body.fullAppData).to.equal(document);
  });

  it('registers inline app data so that it can be read back by its hash', async () => {
    const document = '{"appCode":"inline","metadata":{}}';
    const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, { appData: document });
    expect((await place(signed.body)).status).to.equal(201);
    const read = await documentedHttp(
      'GET',
      `${service.devnet}/api/v1/app_data/${signed.appDataHash}`,
    );
    expect(read.body).to.deep.equal({ fullAppData: document });
  });

  it('starts presign orders as presignaturePending and checks eip1271 owners on chain', async () => {
    const owner = newWallet().address;
    const presign = presignOrder(owner, CHAIN_ID.devnet);
    expect((await place(presign.body)).status).to.equal(201);
    const read = await documentedHttp<Order>('GET', `${orders}/${presign.uid}`);
    expect(read.body).to.include({ status: 'presignaturePending', signature: '0x' });

    // An account without code validates nothing (contract owners: test/integration/chain/).
    const notAContract = newWallet().address;
    const eip1271 = presignOrder(
      notAContract,
      CHAIN_ID.devnet,
      {},
      {
        body: { signingScheme: 'eip1271', signature: '0xdeadbeef' },
      },
    );
    const refused = await place(eip1271.body);
    expect((refused.body as ErrorBody).errorType).to.equal('InvalidEip1271Signature');
  });

  it('needs from for presign orders (MissingFrom)', async () => {
    const presign = presignOrder(newWallet().address, CHAIN_ID.devnet, {}, { omitFrom: true });
    const response = await place(presign.body);
    expect(response.status).to.equal(400);
    expect((response.body as ErrorBody).errorType).to.equal('MissingFrom');
  });

  it('rejects a second submission of the same order (DuplicatedOrder)', async () => {
    const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet);
    expect((await place(signed.body)).status).to.equal(201);
    const again = await place(signed.body);
    expect(again.status).to.equal(400);
    expect((again.body as ErrorBody).errorType).to.equal('DuplicatedOrder');
  });

  describe('signatures (seed §7.2: every mismatch is InvalidSignature)', () => {
    it('rejects a signer other than from', async () => {
      await rejected({}, 'InvalidSignature', { from: Wallet.createRandom().address });
    });
    it('rejects a signature for another chain (domain mismatch)', async () => {
      const signed = await signOrder(newWallet(), CHAIN_ID.mainnet);
      const response = await place(signed.body);
      expect((response.body as ErrorBody).errorType).to.equal('InvalidSignature');
    });
    it('rejects a wrongly declared scheme', async () => {
      const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, {}, 'eip712', {
        body: { signingScheme: 'ethsign' },
      });
      expect(((await place(signed.body)).body as ErrorBody).errorType).to.equal('InvalidSignature');
    });
    it('rejects a signature that is not 65 bytes', async () => {
      await rejected({}, 'InvalidSignature', { body: { signature: '0x1234' } });
    });
    it('rejects from that differs from the app-data signer (AppdataFromMismatch)', async () => {
      const appData = JSON.stringify({ metadata: { signer: Wallet.createRandom().address } });
      await rejected({ appData }, 'AppdataFromMismatch');
    });
  });

  /** App data with one post-hook (never run by the submission's checks) of `gasLimit`. */
  const withPostHookGas = (gasLimit: string) =>
    JSON.stringify({
      metadata: { hooks: { post: [{ target: TOKENS.DAI, callData: '0x', gasLimit }] } },
    });

  describe('order rules', () => {
    // validTo is set when the test runs, not when the suite is defined: later suites run
    // tens of seconds after this file loads.
    const inSeconds = (seconds: number) => ({ validTo: nowSeconds() + seconds });
    const cases: [string, Partial<OrderParams> | (() => Partial<OrderParams>), string][] = [
      ['a zero sell amount', { sellAmount: '0' }, 'ZeroAmount'],
      ['a zero buy amount', { buyAmount: '0' }, 'ZeroAmount'],
      ['the same token on both sides', { buyToken: TOKENS.WETH }, 'SameBuyAndSellToken'],
      ['WETH sold for native ETH', { buyToken: NATIVE }, 'SameBuyAndSellToken'],
      ['native ETH as sell token', { sellToken: NATIVE }, 'InvalidNativeSellToken'],
      ['validTo in the past', () => inSeconds(-10), 'OrderExpired'],
      ['validTo too soon', () => inSeconds(30), 'InsufficientValidTo'],
      ['validTo over a year ahead', () => inSeconds(366 * 86_400), 'ExcessiveValidTo'],
      ['a non-zero fee', { feeAmount: '1' }, 'NonZeroFee'],
      [
        'a fee on a partially fillable order',
        { feeAmount: '1', partiallyFillable: true },
        'UnsupportedOrderType',
      ],
      ['internal buy balances', { buyTokenBalance: 'internal' }, 'UnsupportedBuyTokenDestination'],
      ['external sell balances', { sellTokenBalance: 'external' }, 'UnsupportedSellTokenSource'],
      ['a deny-listed receiver', { receiver: DENIED }, 'Forbidden'],
      ['hooks asking over 8M gas', { appData: withPostHookGas('8000001') }, 'TooMuchGas'],
      [
        'validTo under 60 s after the app data’s validFrom',
        () => ({
          ...inSeconds(1800),
          appData: `{"metadata":{"validFrom":${nowSeconds() + 1750}}}`,
        }),
        'InvalidValidFrom',
      ],
    ];
    for (const [what, fields, errorType] of cases) {
      it(`rejects ${what} (${errorType})`, async () => {
        const overrides = typeof fields === 'function' ? fields() : fields;
        if (errorType === 'Forbidden') {
          const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, overrides);
          const response = await place(signed.body);
          expect(response.status).to.equal(403);
          expect((response.body as ErrorBody).errorType).to.equal('Forbidden');
          return;
        }
        await rejected(overrides, errorType);
      });
    }

    it('accepts hooks of 8M gas and validTo 60 s after validFrom, the limits themselves', async () => {
      const validTo = nowSeconds() + 1800;
      for (const appData of [
        withPostHookGas('8000000'),
        `{"metadata":{"validFrom":${validTo - 60}}}`,
      ]) {
        const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, { validTo, appData });
        const response = await place(signed.body);
        expect(response.status, response.text).to.equal(201);
      }
    });

    it('rejects amounts beyond uint256 (SellAmountOverflow, BuyAmountOverflow)', async () => {
      const huge = (2n ** 256n).toString();
      await rejected({}, 'SellAmountOverflow', { body: { sellAmount: huge } });
      await rejected({}, 'BuyAmountOverflow', { body: { buyAmount: huge } });
    });

    it('rejects app data it cannot resolve or that does not match', async () => {
      await rejected({ appData: `0x${'12'.repeat(32)}` }, 'InvalidAppData');
      await rejected({}, 'AppDataHashMismatch', { body: { appDataHash: `0x${'34'.repeat(32)}` } });
      await rejected({ appData: '{"metadata":{"hooks":"nope"}}' }, 'InvalidAppData');
    });

    it('rejects app data that repeats a key, which a strict JSON reader refuses (InvalidAppData)', async () => {
      const signer = (await fundedWallet()).address;
      // Read last-key-wins, the second signer would be taken for the first.
      const appData = `{"metadata":{"signer":"${TOKENS.DAI}","signer":"${signer}"}}`;
      await rejected({ appData }, 'InvalidAppData');
    });
  });

  it('lists an owner’s orders newest first, paginated', async () => {
    const wallet = await fundedWallet();
    const uids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const signed = await signOrder(wallet, CHAIN_ID.devnet, { sellAmount: String(1000 + i) });
      expect((await place(signed.body)).status).to.equal(201);
      uids.push(signed.uid);
    }
    const account = `${service.devnet}/api/v1/account/${wallet.address}/orders`;
    const all = await documentedHttp<Order[]>('GET', account);
    expect(all.body.map((o) => o.uid)).to.deep.equal([...uids].reverse());
    const page = await documentedHttp<Order[]>('GET', `${account}?offset=1&limit=1`);
    expect(page.body.map((o) => o.uid)).to.deep.equal([uids[1]]);

    const byUids = await documentedHttp<{ order: Order }[]>('POST', `${orders}/by_uids`, [
      uids[0],
      `0x${'00'.repeat(56)}`,
      uids[2],
    ]);
    expect(byUids.body.map((r) => r.order.uid).sort()).to.deep.equal([uids[0], uids[2]].sort());
  });

  it('keeps each network’s orders apart', async () => {
    const signed = await signOrder(await fundedWallet(CHAIN_ID.mainnet), CHAIN_ID.mainnet);
    expect(
      (await documentedHttp('POST', `${service.mainnet}/api/v1/orders`, signed.body)).status,
    ).to.equal(201);
    expect((await documentedHttp('GET', `${orders}/${signed.uid}`)).status).to.equal(404);
    expect(
      (await documentedHttp('GET', `${service.mainnet}/api/v1/orders/${signed.uid}`)).status,
    ).to.equal(200);
  });
});
