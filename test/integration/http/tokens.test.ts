/**
 * The token endpoints on the devnet: GET /{chainId}/tokens/{token}/usdPrice, priced from its
 * Uniswap-V2 pools (1 WETH = 3,000 DUSD), and GET /{chainId}/tokens/{token}/topHolders, from the
 * Transfer-log indexer of the tokens the book trades. Errors are `{message}` (seed §2.8).
 */
import { expect } from 'chai';
import { Interface, concat, toQuantity } from 'ethers';
import { erc20MinterArtifact } from '../../../src/chain/devnet/artifacts.js';
import { sendFromNode } from '../../../src/chain/devnet/node-client.js';
import type { Address } from '../../../src/domain/events.js';
import { DEVNET_DEMO_TOKENS, networkByName } from '../../../src/domain/networks.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { fundedWallet } from '../../support/owners.js';
import { documentedHttp } from '../../support/openapi.js';
import { startTestService, type TestService } from '../../support/service.js';
import { CHAIN_ID, newWallet, signOrder } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';

interface Holder {
  address: string;
  balance: string;
}

const ERC20 = new Interface(erc20MinterArtifact().abi);
/** Far above what the demo accounts and pools hold, so the test's accounts lead the list. */
const UNIT = 10n ** 30n;

const fresh = () => newWallet().address.toLowerCase() as Address;

describe('HTTP: token endpoints', function () {
  this.timeout(60_000);
  let service: TestService;
  let chain: TestChain;
  let weth: Address;
  let dusd: Address;
  let dcow: Address;

  before(async () => {
    chain = await sharedTestChain();
    service = await startTestService();
    weth = chain.deployment.weth.address;
    const symbol = (s: string) => chain.deployment.tokens.find((t) => t.symbol === s)!.address;
    dusd = symbol('DUSD');
    dcow = symbol('DCOW');
  });
  after(() => service?.stop());

  const get = <T>(path: string) => documentedHttp<T>('GET', `${service.url}${path}`);
  const usdPrice = (chainRef: string, token: string) =>
    get<{ price: number } & { message?: string }>(`/${chainRef}/tokens/${token}/usdPrice`);
  const topHolders = (chainRef: string, token: string, query = '') =>
    get<Holder[] & { message?: string }>(`/${chainRef}/tokens/${token}/topHolders${query}`);

  /** A 4xx of these endpoints: exactly `{message}`, with a message naming what went wrong. */
  const expectMessage = (
    response: { status: number; body: unknown; text: string },
    status: number,
    pattern: RegExp,
  ) => {
    expect(response.status, response.text).to.equal(status);
    expect(response.body).to.have.all.keys('message');
    expect((response.body as { message: string }).message).to.match(pattern);
  };

  it('knows the devnet demo tokens at the addresses its deployment creates', () => {
    const deployed = Object.fromEntries(chain.deployment.tokens.map((t) => [t.symbol, t.address]));
    expect(deployed).to.deep.equal(DEVNET_DEMO_TOKENS);
    const devnet = networkByName('devnet')!;
    expect(devnet.usdReference).to.deep.equal({ address: dusd, decimals: 18 });
    expect(devnet.indexedTokens).to.have.members([weth, ...Object.values(DEVNET_DEMO_TOKENS)]);
  });

  describe('GET /{chainId}/tokens/{token}/usdPrice', () => {
    it('prices DUSD at 1 and WETH at about 3,000, by chain id and by name', async () => {
      const dusdPrice = await usdPrice('31337', dusd);
      expect(dusdPrice.status, dusdPrice.text).to.equal(200);
      expect(dusdPrice.body).to.have.all.keys('price');
      expect(dusdPrice.body.price).to.be.closeTo(1, 1e-9);
      const wethPrice = await usdPrice('devnet', weth);
      expect(wethPrice.status, wethPrice.text).to.equal(200);
      // The pool's 0.3% fee and the price impact of the 0.1 WETH probe: a little above 3,000.
      expect(wethPrice.body.price).to.be.within(2990, 3030);
      expect((await usdPrice('31337', weth)).body.price).to.equal(wethPrice.body.price);
    });

    it('prices `-` as the wrapped native token and takes any address form', async () => {
      const wethPrice = (await usdPrice('devnet', weth)).body.price;
      const native = await usdPrice('devnet', '-');
      expect(native.status, native.text).to.equal(200);
      expect(native.body.price).to.equal(wethPrice);
      for (const form of [dusd.slice(2).toUpperCase(), `0X${dusd.slice(2).toUpperCase()}`]) {
        const response = await usdPrice('31337', form);
        expect(response.status, `${form}: ${response.text}`).to.equal(200);
        expect(response.body.price).to.be.closeTo(1, 1e-9);
      }
    });

    it('says how long the price may be cached', async () => {
      const response = await usdPrice('devnet', dusd);
      expect(response.headers.get('cache-control')).to.equal('public, max-age=30');
    });

    it('answers 404 {message} for a token no pool prices', async () => {
      expectMessage(await usdPrice('devnet', fresh()), 404, /decimals|pool/);
      // An ERC-20 with decimals but no pool.
      expectMessage(await usdPrice('devnet', await deployToken()), 404, /no pool/);
    });

    it('answers 400 {message} for an unknown chain or a malformed address', async () => {
      expectMessage(await usdPrice('nochain', dusd), 400, /unknown chain "nochain"/);
      expectMessage(await usdPrice('12345', dusd), 400, /unknown chain/);
      expectMessage(await usdPrice('devnet', '0x1234'), 400, /not a token address/);
      expectMessage(await usdPrice('devnet', `0x${'g'.repeat(40)}`), 400, /not a token address/);
    });

    it('answers 404 {message} naming the variable for a network that is not live', async () => {
      for (const ref of ['sepolia', '11155111']) {
        expectMessage(await usdPrice(ref, dusd), 404, /set SEPOLIA_RPC_URL/);
      }
    });
  });

  describe('GET /{chainId}/tokens/{token}/topHolders', () => {
    /** Waits until the listed holders of `token` among `accounts` are exactly `expected`. */
    const waitForHolders = async (
      token: Address,
      accounts: readonly Address[],
      expected: readonly Holder[],
    ) => {
      let last: Holder[] = [];
      await waitFor(
        async () => {
          const response = await topHolders('devnet', token);
          if (response.status !== 200) return false;
          last = response.body.filter((h) => accounts.includes(h.address as Address));
          return JSON.stringify(last) === JSON.stringify(expected);
        },
        { timeoutMs: 15_000, description: `holders ${JSON.stringify(expected)}` },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; last seen ${JSON.stringify(last)}`);
      });
    };

    const transfer = (from: Address, token: Address, to: Address, amount: bigint) =>
      sendFromNode(chain.provider, {
        from,
        to: token,
        data: ERC20.encodeFunctionData('transfer', [to, amount]),
      });

    it('lists funded accounts largest first with exact balances, and follows transfers', async () => {
      const [a, b, c, d] = [fresh(), fresh(), fresh(), fresh()];
      await chain.fund(a, dcow, 3n * UNIT);
      await chain.fund(b, dcow, 2n * UNIT);
      await chain.fund(c, dcow, 1n * UNIT);
      const accounts = [a, b, c, d];
      const holder = (address: Address, units: bigint) => ({
        address,
        balance: String(units * UNIT),
      });
      await waitForHolders(dcow, accounts, [holder(a, 3n), holder(b, 2n), holder(c, 1n)]);

      const response = await topHolders('31337', dcow.slice(2).toUpperCase());
      expect(response.status).to.equal(200);
      expect(response.body.length).to.be.at.most(10);
      const balances = response.body.map((h) => BigInt(h.balance));
      expect(balances).to.deep.equal([...balances].sort((x, y) => (x < y ? 1 : x > y ? -1 : 0)));
      expect(balances.every((balance) => balance > 0n)).to.equal(true);
      expect(response.body.map((h) => h.address)).not.to.include(`0x${'0'.repeat(40)}`);

      // a gives c two units; b empties its account into d, and so leaves the list.
      await transfer(a, dcow, c, 2n * UNIT);
      await transfer(b, dcow, d, 2n * UNIT);
      await waitForHolders(dcow, accounts, [holder(c, 3n), holder(d, 2n), holder(a, 1n)]);
    });

    it('forgets transfers a reorg took back', async () => {
      const holder = fresh();
      const snapshot = await chain.snapshot();
      await chain.fund(holder, dcow, 5n * UNIT);
      await waitForHolders(dcow, [holder], [{ address: holder, balance: String(5n * UNIT) }]);
      await chain.revert(snapshot);
      // The replacement chain grows past the reverted blocks, as a reorg's would.
      await chain.mine(3);
      await waitForHolders(dcow, [holder], []);
    });

    it('honours ?limit= up to 100', async () => {
      const one = await topHolders('devnet', weth, '?limit=1');
      expect(one.status, one.text).to.equal(200);
      expect(one.body).to.have.length(1);
      expectMessage(await topHolders('devnet', weth, '?limit=101'), 400, /limit/);
      expectMessage(await topHolders('devnet', weth, '?limit=0'), 400, /limit/);
    });

    it('indexes a token from its first block once an order trades it', async () => {
      const token = await deployToken();
      const holder = fresh();
      await mint(token, holder, 7n * 10n ** 18n);
      expectMessage(await topHolders('devnet', token), 404, /not indexed.*tokens the book trades/);

      const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, { buyToken: token });
      const placed = await documentedHttp('POST', `${service.devnet}/api/v1/orders`, signed.body);
      expect(placed.status, placed.text).to.equal(201);
      await waitForHolders(
        token,
        [holder],
        [{ address: holder, balance: String(7n * 10n ** 18n) }],
      );
    });

    it('lists balances of different lengths largest first, and ?limit= takes the largest', async () => {
      const token = await deployToken();
      const [small, medium, large] = [fresh(), fresh(), fresh()];
      // As text, "4500" and "3000" sort above "1500000": the order must be by amount.
      await mint(token, medium, 4_500n);
      await mint(token, small, 3_000n);
      await mint(token, large, 1_500_000n);
      const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet, { buyToken: token });
      const placed = await documentedHttp('POST', `${service.devnet}/api/v1/orders`, signed.body);
      expect(placed.status, placed.text).to.equal(201);
      const holder = (address: Address, balance: bigint) => ({ address, balance: String(balance) });
      await waitForHolders(
        token,
        [small, medium, large],
        [holder(large, 1_500_000n), holder(medium, 4_500n), holder(small, 3_000n)],
      );

      const two = await topHolders('devnet', token, '?limit=2');
      expect(two.status, two.text).to.equal(200);
      expect(two.body).to.deep.equal([holder(large, 1_500_000n), holder(medium, 4_500n)]);
    });

    it('answers 404 {message} for a token nobody trades and for the native token', async () => {
      expectMessage(await topHolders('devnet', fresh()), 404, /not indexed/);
      expectMessage(await topHolders('devnet', '-'), 404, /native currency/);
    });

    it('answers 404 {message} naming the variable for a network that is not live', async () => {
      for (const ref of ['sepolia', '11155111']) {
        expectMessage(await topHolders(ref, dusd), 404, /set SEPOLIA_RPC_URL/);
      }
    });

    it('answers 400 {message} for an unknown chain or a malformed address', async () => {
      expectMessage(await topHolders('nochain', dusd), 400, /unknown chain/);
      expectMessage(await topHolders('devnet', 'xyz'), 400, /not a token address/);
    });
  });

  /** A fresh mintable ERC-20 (18 decimals) that no pool and no order knows yet. */
  async function deployToken(): Promise<Address> {
    const deployer = fresh();
    await chain.provider.send('anvil_setBalance', [deployer, toQuantity(10n ** 18n)]);
    const data = concat([erc20MinterArtifact().bytecode, ERC20.encodeDeploy(['Fresh', 'FRSH'])]);
    const token = await sendFromNode(chain.provider, { from: deployer, data });
    minters.set(token!, deployer);
    return token!;
  }

  const minters = new Map<Address, Address>();
  async function mint(token: Address, to: Address, amount: bigint): Promise<void> {
    const data = ERC20.encodeFunctionData('mint', [to, amount]);
    await sendFromNode(chain.provider, { from: minters.get(token)!, to: token, data });
  }
});
