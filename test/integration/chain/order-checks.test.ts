/**
 * Chain checks at submission (reference §4.1 step 9) against the real devnet: the vault
 * relayer must be able to pull the sell token, EIP-1271 owners must accept the signature, and
 * pre-signed orders wait for their signature on chain. Plus network liveness: a network without
 * an RPC URL refuses writes and still serves reads.
 */
import { expect } from 'chai';
import { Contract, Interface, Wallet, getBytes } from 'ethers';
import type { Address, OrderData } from '../../../src/domain/events.js';
import { erc20MinterArtifact } from '../../../src/chain/devnet/artifacts.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import {
  deployEip1271Wallet,
  orderBody,
  orderIdentity,
  sellOrder,
  signTrade,
} from '../../support/settle.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { appDataHash, newWallet, signOrder } from '../../support/signing.js';

describe('chain checks at order submission', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let service: TestService;
  let sequence = 0;

  before(async () => {
    chain = await startTestChain();
    service = await startTestService({ env: { DEVNET_RPC_URL: chain.rpcUrl } });
  });
  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const token = (i: number) => chain.deployment.tokens[i]!.address;
  const order = (sellAmount: bigint): OrderData =>
    sellOrder({
      sellToken: token(0),
      buyToken: token(1),
      sellAmount: String(sellAmount),
      buyAmount: String(1000n + BigInt(++sequence)),
    });
  const submit = async (wallet: Wallet, signed: OrderData, extra: Record<string, unknown> = {}) =>
    http<{ errorType?: string; description?: string }>(
      'POST',
      `${service.devnet}/api/v1/orders`,
      orderBody(await signTrade(chain, wallet, signed), extra),
    );
  const funded = async (amount: bigint, allowance?: bigint) => {
    const wallet = newWallet();
    const owner = wallet.address as Address;
    await chain.fund(
      owner,
      token(0),
      amount,
      allowance === undefined ? {} : { approve: allowance },
    );
    return wallet;
  };

  describe('sell-token transfer', () => {
    it('accepts an owner with balance and allowance', async () => {
      const response = await submit(await funded(10n ** 18n), order(10n ** 18n));
      expect(response.status, response.text).to.equal(201);
    });

    it('refuses an owner without allowance to the vault relayer (InsufficientAllowance)', async () => {
      const response = await submit(await funded(10n ** 18n, 0n), order(10n ** 18n));
      expect(response.status).to.equal(400);
      expect(response.body.errorType).to.equal('InsufficientAllowance');
    });

    it('refuses an owner without any balance (InsufficientBalance)', async () => {
      const wallet = newWallet();
      await chain.fund(wallet.address as Address, token(0), 0n, { approve: 1n });
      const response = await submit(wallet, order(10n ** 18n));
      expect(response.body.errorType).to.equal('InsufficientBalance');
    });

    it('checks the transfer before refusing a signed fee, as the reference does (then NonZeroFee)', async () => {
      const withFee = (signed: OrderData): OrderData => ({ ...signed, feeAmount: '1' });
      const unfunded = newWallet();
      await chain.fund(unfunded.address as Address, token(0), 0n, { approve: 1n });
      const poor = await submit(unfunded, withFee(order(10n ** 18n)));
      expect(poor.body.errorType).to.equal('InsufficientBalance');
      const rich = await submit(await funded(10n ** 18n), withFee(order(10n ** 18n)));
      expect(rich.status).to.equal(400);
      expect(rich.body.errorType).to.equal('NonZeroFee');
    });

    it('forgives a missing balance when the allowance covers the order, unless fullBalanceCheck', async () => {
      const wallet = newWallet();
      await chain.fund(wallet.address as Address, token(0), 0n, { approve: 10n ** 18n });
      expect((await submit(wallet, order(10n ** 18n))).status).to.equal(201);
      const full = await submit(wallet, order(10n ** 18n), { fullBalanceCheck: true });
      expect(full.body.errorType).to.equal('InsufficientBalance');
    });

    it('checks the full amount with fullBalanceCheck, a token’s worth without', async () => {
      const wallet = await funded(10n);
      expect((await submit(wallet, order(10n ** 18n))).status).to.equal(201);
      const full = await submit(wallet, order(10n ** 18n), { fullBalanceCheck: true });
      expect(full.body.errorType).to.equal('InsufficientBalance');
      const allowance = await funded(10n ** 18n, 5n);
      const short = await submit(allowance, order(10n ** 18n), { fullBalanceCheck: true });
      expect(short.body.errorType).to.equal('InsufficientAllowance');
    });

    it('reports a token that refuses the transfer (TransferSimulationFailed)', async () => {
      // A paused demo token reverts every transfer, whatever the balance and allowance.
      const wallet = await funded(10n ** 18n);
      const pausable = new Contract(
        token(0),
        new Interface(erc20MinterArtifact().abi),
        new Wallet(chain.deployment.deployer.privateKey, chain.provider),
      );
      await (await pausable.getFunction('pause')()).wait();
      try {
        const response = await submit(wallet, order(10n ** 18n));
        expect(response.body.errorType).to.equal('TransferSimulationFailed');
        expect(response.body.description).to.match(/^sell token cannot be transferred/);
      } finally {
        await (await pausable.getFunction('unpause')()).wait();
      }
    });

    it('skips the transfer check for a wrapped order: its wrapper brings the funds', async () => {
      const wrapper = { address: `0x${'77'.repeat(20)}`, data: '0x01', isOmittable: false };
      const appData = JSON.stringify({ metadata: { wrappers: [wrapper] } });
      const signed = { ...order(10n ** 18n), appData: appDataHash(appData) };
      const response = await submit(newWallet(), signed, { appData, appDataHash: signed.appData });
      expect(response.status, response.text).to.equal(201);
    });

    it('writes nothing for a refused order', async () => {
      const signed = order(10n ** 18n);
      const wallet = await funded(10n ** 18n, 0n);
      const refused = await submit(wallet, signed);
      expect(refused.status).to.equal(400);
      const { uid } = orderIdentity(chain, signed, wallet.address.toLowerCase() as Address);
      expect((await http('GET', `${service.devnet}/api/v1/orders/${uid}`)).status).to.equal(404);
    });
  });

  describe('EIP-1271 owners', () => {
    it('accepts a signature the owner contract validates and refuses one it does not', async () => {
      const signer = newWallet().connect(chain.provider);
      await chain.provider.send('anvil_setBalance', [signer.address, '0xde0b6b3a7640000']);
      const wallet = await deployEip1271Wallet(chain, signer);
      await chain.fund(wallet.address, token(0), 10n ** 18n);
      const signed = order(10n ** 18n);
      const { digest, uid } = orderIdentity(chain, signed, wallet.address);
      const body = (signature: string) => ({
        ...signed,
        appData: '{}',
        signingScheme: 'eip1271',
        signature,
        from: wallet.address,
      });
      const post = (signature: string) =>
        http<{ errorType?: string }>('POST', `${service.devnet}/api/v1/orders`, body(signature));

      const stranger = await post(newWallet().signingKey.sign(getBytes(digest)).serialized);
      expect(stranger.status).to.equal(400);
      expect(stranger.body.errorType).to.equal('InvalidEip1271Signature');

      const accepted = await post(signer.signingKey.sign(getBytes(digest)).serialized);
      expect(accepted.status, accepted.text).to.equal(201);
      expect(accepted.body).to.equal(uid);
    });

    it('refuses an eip1271 order whose owner is not a contract', async () => {
      const signed = order(10n ** 18n);
      const owner = (await funded(10n ** 18n)).address.toLowerCase();
      const response = await http<{ errorType?: string }>(
        'POST',
        `${service.devnet}/api/v1/orders`,
        { ...signed, appData: '{}', signingScheme: 'eip1271', signature: '0x1234', from: owner },
      );
      expect(response.body.errorType).to.equal('InvalidEip1271Signature');
    });
  });

  it('accepts a pre-sign order without funds and shows it presignaturePending', async () => {
    const owner = newWallet().address.toLowerCase() as Address;
    const signed = order(10n ** 18n);
    const { uid } = orderIdentity(chain, signed, owner);
    const response = await http('POST', `${service.devnet}/api/v1/orders`, {
      ...signed,
      appData: '{}',
      signingScheme: 'presign',
      signature: '0x',
      from: owner,
    });
    expect(response.status, response.text).to.equal(201);
    const read = await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${uid}`);
    expect(read.body.status).to.equal('presignaturePending');
  });

  it('refuses writes on a network without an RPC URL, naming the variable, and still reads', async () => {
    const response = await http<{ errorType: string; description: string }>(
      'POST',
      `${service.url}/sepolia/api/v1/orders`,
      {},
    );
    expect(response.status).to.equal(503);
    expect(response.body.errorType).to.equal('NetworkNotLive');
    expect(response.body.description).to.contain('SEPOLIA_RPC_URL');
    const cancel = await http('DELETE', `${service.url}/sepolia/api/v1/orders`, {});
    expect(cancel.status).to.equal(503);
    const read = await http('GET', `${service.url}/sepolia/api/v1/orders/0x${'11'.repeat(56)}`);
    expect(read.status).to.equal(404);
    // A read sent as POST for its body writes nothing, so it serves too.
    const byUids = await http('POST', `${service.url}/sepolia/api/v1/orders/by_uids`, [
      `0x${'11'.repeat(56)}`,
    ]);
    expect(byUids.status, byUids.text).to.equal(200);
    expect(byUids.body).to.deep.equal([]);
  });
});

describe('a live network whose node does not answer', function () {
  this.timeout(30_000);
  let service: TestService;
  before(async () => {
    // A port nobody listens on; one quick attempt, so the refusal comes fast.
    service = await startTestService({
      env: { SEPOLIA_RPC_URL: 'http://127.0.0.1:9', RPC_RETRIES: '0', RPC_TIMEOUT_MS: '1000' },
    });
  });
  after(() => service?.stop());

  it('refuses orders with 503 ChainUnavailable, writes nothing, and keeps serving reads', async () => {
    const wallet = newWallet();
    const signed = await signOrder(wallet, 11155111);
    const response = await http<{ errorType: string }>(
      'POST',
      `${service.url}/sepolia/api/v1/orders`,
      signed.body,
    );
    expect(response.status).to.equal(503);
    expect(response.body.errorType).to.equal('ChainUnavailable');
    const read = await http('GET', `${service.url}/sepolia/api/v1/orders/${signed.uid}`);
    expect(read.status).to.equal(404);
  });
});
