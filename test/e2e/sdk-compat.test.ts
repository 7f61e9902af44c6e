/**
 * The official client against a real in-process batchbook: `OrderBookApi` from
 * `@cowprotocol/cow-sdk` 9.2.6 sends every request, and the SDK's own `OrderSigningUtils`
 * (through the viem adapter) signs orders and cancellations. Nothing here builds a request body
 * or a signature by hand, so a wire-format or hashing difference from the reference service
 * fails here the way it would fail an integrator (shared/reference/cow-sdk-client.md).
 */
import { expect } from 'chai';
import {
  BuyTokenDestination,
  ContractsSigningScheme,
  EcdsaSigningScheme,
  OrderBookApi,
  OrderBookApiError,
  OrderKind,
  OrderQuoteSideKindSell,
  OrderSigningUtils,
  SellTokenSource,
  SigningScheme,
  SupportedChainId,
  getQuoteAmountsAndCosts,
  setGlobalAdapter,
  signOrder as contractsSignOrder,
  signOrderCancellations as contractsSignOrderCancellations,
  type ApiBaseUrls,
  type ContractsOrder,
  type OrderCreation,
  type ProtocolOptions,
  type Signer,
  type UnsignedOrder,
} from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { createPublicClient, http, keccak256, toBytes, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import type { Address } from '../../src/domain/events.js';
import { DEVNET_DEMO_TOKENS } from '../../src/domain/networks.js';
import { sharedTestChain } from '../support/chain.js';
import { startTestService, type TestService } from '../support/service.js';

const DEVNET = 31337 as SupportedChainId;
const SETTLEMENT = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
const DAI = '0x6B175474E89094C44Da98b954EedeAC495271d0F';
const VERSION = 'batchbook-e2e-sdk-compat';
/** What the SDK needs on a local chain (cow-sdk-client.md, "Pointing it at batchbook"). */
const devnetOptions: ProtocolOptions = { settlementContractOverride: { [DEVNET]: SETTLEMENT } };

type ErrorBody = { errorType: string; description: string };

interface Trader {
  address: `0x${string}`;
  signer: Signer;
}

describe('e2e: @cowprotocol/cow-sdk OrderBookApi against batchbook', function () {
  this.timeout(60_000);

  let service: TestService;
  let provider: PublicClient;
  let devnetApi: OrderBookApi;
  let mainnetApi: OrderBookApi;

  /**
   * A fresh account holding WETH approved to the vault relayer on the test chain (the devnet by
   * default), which the service checks on submission. Signing is local.
   */
  async function newTrader(chainId?: number): Promise<Trader> {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    const chain = await sharedTestChain(chainId);
    await chain.fund(address.toLowerCase() as Address, chain.deployment.weth.address, 10n ** 19n);
    return {
      address,
      signer: new ViemAdapter({ provider, signer: key }).signer as unknown as Signer,
    };
  }

  function api(chainId: SupportedChainId, url: string): OrderBookApi {
    return new OrderBookApi({
      chainId,
      env: 'prod',
      baseUrls: { [chainId]: url } as ApiBaseUrls,
      backoffOpts: { numOfAttempts: 1 },
      limiterOpts: { tokensPerInterval: 100, interval: 'second' },
    });
  }

  /** A distinct app-data document per call, so tests never share a stored document. */
  function appDataDocument(): { fullAppData: string; hash: `0x${string}` } {
    const fullAppData = JSON.stringify({
      appCode: 'batchbook-e2e',
      metadata: { quote: { slippageBips: 50 } },
      version: '1.3.0',
      environment: `test-${Math.random().toString(36).slice(2)}`,
    });
    return { fullAppData, hash: keccak256(toBytes(fullAppData)) };
  }

  function unsignedOrder(
    owner: Trader,
    appDataHash: string,
    overrides: Partial<UnsignedOrder> = {},
  ): UnsignedOrder {
    return {
      sellToken: WETH,
      buyToken: DAI,
      receiver: owner.address,
      sellAmount: '1000000000000000000',
      buyAmount: '1990000000000000000000',
      validTo: Math.floor(Date.now() / 1000) + 1800,
      appData: appDataHash,
      feeAmount: '0',
      kind: OrderKind.SELL,
      partiallyFillable: false,
      sellTokenBalance: SellTokenSource.ERC20,
      buyTokenBalance: BuyTokenDestination.ERC20,
      ...overrides,
    };
  }

  /** What the SDK's trading flow does: upload the app data, sign, send. */
  async function placeOrder(
    owner: Trader,
    scheme: EcdsaSigningScheme,
    overrides: Partial<UnsignedOrder> = {},
    quoteId: number | null = null,
  ): Promise<{ uid: string; order: UnsignedOrder; creation: OrderCreation; fullAppData: string }> {
    const { fullAppData, hash } = appDataDocument();
    await devnetApi.uploadAppData(hash, fullAppData);
    const order = unsignedOrder(owner, hash, overrides);
    let signature: string;
    if (scheme === EcdsaSigningScheme.EIP712) {
      const signed = await OrderSigningUtils.signOrder(order, DEVNET, owner.signer, devnetOptions);
      expect(signed.signingScheme).to.equal(EcdsaSigningScheme.EIP712);
      signature = signed.signature;
    } else {
      // OrderSigningUtils picks eth_sign only as a wallet fallback; the SDK's contract-level
      // signer (the same code path that fallback ends in) produces it directly.
      const domain = await OrderSigningUtils.getDomain(DEVNET, devnetOptions);
      const signed = await contractsSignOrder(
        domain,
        order as unknown as ContractsOrder,
        ContractsSigningScheme.ETHSIGN,
        owner.signer,
      );
      signature = signed.data as string;
    }
    const creation: OrderCreation = {
      ...order,
      appData: fullAppData,
      appDataHash: hash,
      signature,
      signingScheme: scheme as unknown as SigningScheme,
      from: owner.address,
      quoteId,
    };
    const uid = await devnetApi.sendOrder(creation);
    return { uid, order, creation, fullAppData };
  }

  async function expectedUid(owner: Trader, order: UnsignedOrder): Promise<string> {
    const { orderId } = await OrderSigningUtils.generateOrderId(
      DEVNET,
      order as unknown as ContractsOrder,
      { owner: owner.address },
      devnetOptions,
    );
    return orderId;
  }

  async function rejection(promise: Promise<unknown>): Promise<OrderBookApiError<ErrorBody>> {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(OrderBookApiError);
      return error as OrderBookApiError<ErrorBody>;
    }
    return expect.fail('the SDK call was expected to reject');
  }

  before(async () => {
    service = await startTestService({ env: { BATCHBOOK_VERSION: VERSION } });
    provider = createPublicClient({
      chain: foundry,
      transport: http('http://127.0.0.1:9'),
    }) as PublicClient;
    setGlobalAdapter(new ViemAdapter({ provider, signer: generatePrivateKey() }));
    devnetApi = api(DEVNET, service.devnet);
    mainnetApi = api(SupportedChainId.MAINNET, service.mainnet);
  });

  after(async () => {
    await service?.stop();
  });

  it('getVersion returns the configured version string', async () => {
    expect(await devnetApi.getVersion()).to.equal(VERSION);
  });

  it('uploadAppData stores a document, a re-upload still succeeds, getAppData reads it back', async () => {
    const { fullAppData, hash } = appDataDocument();
    const first: unknown = await devnetApi.uploadAppData(hash, fullAppData);
    expect(first).to.equal(hash);
    const second: unknown = await devnetApi.uploadAppData(hash, fullAppData);
    expect(second).to.equal(hash);
    expect(await devnetApi.getAppData(hash)).to.deep.equal({ fullAppData });
  });

  it('uploadAppData with a hash that is not the document’s keccak is rejected', async () => {
    const { fullAppData } = appDataDocument();
    const err = await rejection(devnetApi.uploadAppData(`0x${'12'.repeat(32)}`, fullAppData));
    expect(err.response.status).to.equal(400);
    expect(err.body.errorType).to.equal('AppDataHashMismatch');
  });

  it('accepts an eip712 order signed by OrderSigningUtils and answers with the SDK’s own UID', async () => {
    const trader = await newTrader();
    const { uid, order, fullAppData } = await placeOrder(trader, EcdsaSigningScheme.EIP712);
    expect(uid).to.equal(await expectedUid(trader, order));

    const stored = await devnetApi.getOrder(uid);
    expect(stored).to.include({
      uid,
      owner: trader.address.toLowerCase(),
      sellToken: WETH.toLowerCase(),
      buyToken: DAI.toLowerCase(),
      receiver: trader.address.toLowerCase(),
      sellAmount: order.sellAmount,
      buyAmount: order.buyAmount,
      validTo: order.validTo,
      appData: order.appData,
      fullAppData,
      feeAmount: '0',
      kind: 'sell',
      partiallyFillable: false,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      signingScheme: 'eip712',
      status: 'open',
      invalidated: false,
      class: 'limit',
      settlementContract: SETTLEMENT.toLowerCase(),
      executedSellAmount: '0',
      executedBuyAmount: '0',
      // The SDK adds totalFee = executedFeeAmount + executedFee; it throws on non-integers.
      totalFee: '0',
    });
    expect(Number.isNaN(Date.parse(stored.creationDate))).to.equal(false);
  });

  it('links an order placed through the SDK’s quote-then-post flow to its quote', async () => {
    const trader = await newTrader();
    const { quote, id } = await devnetApi.getQuote({
      sellToken: WETH,
      buyToken: DEVNET_DEMO_TOKENS.DUSD,
      from: trader.address,
      receiver: trader.address,
      kind: OrderQuoteSideKindSell.SELL,
      sellAmountBeforeFee: '1000000000000000000',
    });
    // The amounts the SDK's trading flow signs for this quote: the sell amount before the fee,
    // the buy amount less the default 50 bps slippage.
    const { amountsToSign } = getQuoteAmountsAndCosts({
      orderParams: quote,
      slippagePercentBps: 50,
      partnerFeeBps: undefined,
      protocolFeeBps: undefined,
    });
    const sellAmount = amountsToSign.sellAmount.toString();
    const { uid } = await placeOrder(
      trader,
      EcdsaSigningScheme.EIP712,
      { buyToken: DEVNET_DEMO_TOKENS.DUSD, sellAmount, buyAmount: String(amountsToSign.buyAmount) },
      id ?? null,
    );
    const stored = await devnetApi.getOrder(uid);
    expect(stored.quote, 'the order carries its quote').to.include({
      sellAmount,
      feeAmount: quote.feeAmount,
    });
  });

  it('accepts an ethsign order signed by the SDK and answers with the SDK’s own UID', async () => {
    const trader = await newTrader();
    const { uid, order } = await placeOrder(trader, EcdsaSigningScheme.ETHSIGN);
    expect(uid).to.equal(await expectedUid(trader, order));
    const stored = await devnetApi.getOrder(uid);
    expect(stored).to.include({
      uid,
      status: 'open',
      signingScheme: 'ethsign',
      owner: trader.address.toLowerCase(),
    });
  });

  it('getOrders({owner}) lists exactly the owner’s orders', async () => {
    const trader = await newTrader();
    const other = await newTrader();
    const first = await placeOrder(trader, EcdsaSigningScheme.EIP712);
    const second = await placeOrder(trader, EcdsaSigningScheme.ETHSIGN, {
      buyAmount: '1980000000000000000000',
    });
    const foreign = await placeOrder(other, EcdsaSigningScheme.EIP712);

    const orders = await devnetApi.getOrders({ owner: trader.address });
    expect(orders.map((o) => o.uid)).to.have.members([first.uid, second.uid]);
    expect(orders.map((o) => o.uid)).not.to.include(foreign.uid);
    for (const order of orders)
      expect(order).to.include({ owner: trader.address.toLowerCase(), status: 'open' });
  });

  it('sendSignedOrderCancellations with an SDK-signed OrderCancellations cancels every listed order', async () => {
    const trader = await newTrader();
    const a = await placeOrder(trader, EcdsaSigningScheme.EIP712);
    const b = await placeOrder(trader, EcdsaSigningScheme.EIP712, {
      sellAmount: '2000000000000000000',
    });
    const kept = await placeOrder(trader, EcdsaSigningScheme.EIP712, {
      sellAmount: '3000000000000000000',
    });

    const orderUids = [a.uid, b.uid];
    const signed = await OrderSigningUtils.signOrderCancellations(
      orderUids,
      DEVNET,
      trader.signer,
      devnetOptions,
    );
    expect(signed.signingScheme).to.equal(EcdsaSigningScheme.EIP712);
    await devnetApi.sendSignedOrderCancellations({ ...signed, orderUids });

    for (const uid of orderUids) {
      expect(await devnetApi.getOrder(uid)).to.include({
        uid,
        status: 'cancelled',
        invalidated: true,
      });
    }
    expect(await devnetApi.getOrder(kept.uid)).to.include({ status: 'open', invalidated: false });
  });

  it('accepts an ethsign cancellation signed by the SDK', async () => {
    const trader = await newTrader();
    const { uid } = await placeOrder(trader, EcdsaSigningScheme.ETHSIGN);
    const domain = await OrderSigningUtils.getDomain(DEVNET, devnetOptions);
    const signed = await contractsSignOrderCancellations(
      domain,
      [uid],
      ContractsSigningScheme.ETHSIGN,
      trader.signer,
    );
    await devnetApi.sendSignedOrderCancellations({
      orderUids: [uid],
      signature: signed.data as string,
      signingScheme: EcdsaSigningScheme.ETHSIGN,
    });
    expect(await devnetApi.getOrder(uid)).to.include({ status: 'cancelled', invalidated: true });
  });

  it('rejects a duplicate submission with errorType DuplicatedOrder', async () => {
    const trader = await newTrader();
    const { uid, creation } = await placeOrder(trader, EcdsaSigningScheme.EIP712);
    const err = await rejection(devnetApi.sendOrder(creation));
    expect(err.response.status).to.equal(400);
    expect(err.body.errorType).to.equal('DuplicatedOrder');
    expect(await devnetApi.getOrders({ owner: trader.address })).to.have.length(1);
    expect(await devnetApi.getOrder(uid)).to.include({ status: 'open' });
  });

  it('rejects a cancellation signed by another wallet with 401 WrongOwner and cancels nothing', async () => {
    const trader = await newTrader();
    const intruder = await newTrader();
    const { uid } = await placeOrder(trader, EcdsaSigningScheme.EIP712);
    const signed = await OrderSigningUtils.signOrderCancellations(
      [uid],
      DEVNET,
      intruder.signer,
      devnetOptions,
    );
    const err = await rejection(
      devnetApi.sendSignedOrderCancellations({ ...signed, orderUids: [uid] }),
    );
    expect(err.response.status).to.equal(401);
    expect(err.body.errorType).to.equal('WrongOwner');
    expect(await devnetApi.getOrder(uid)).to.include({ status: 'open', invalidated: false });
  });

  it('rejects an order whose `from` is not the signer with errorType InvalidSignature (seed §7.2)', async () => {
    const trader = await newTrader();
    const impostor = await newTrader();
    const { fullAppData, hash } = appDataDocument();
    const order = unsignedOrder(trader, hash);
    const signed = await OrderSigningUtils.signOrder(order, DEVNET, impostor.signer, devnetOptions);
    const err = await rejection(
      devnetApi.sendOrder({
        ...order,
        appData: fullAppData,
        appDataHash: hash,
        signature: signed.signature,
        signingScheme: SigningScheme.EIP712,
        from: trader.address,
      }),
    );
    expect(err.response.status).to.equal(400);
    // The seed lists "wrong signer" under InvalidSignature; the reference would say WrongOwner.
    expect(err.body.errorType).to.equal('InvalidSignature');
    expect(await devnetApi.getOrders({ owner: trader.address })).to.deep.equal([]);
  });

  it('getOrder of an unknown UID rejects with 404 NotFound', async () => {
    const err = await rejection(devnetApi.getOrder(`0x${'ab'.repeat(56)}`));
    expect(err.response.status).to.equal(404);
    expect(err.body.errorType).to.equal('NotFound');
  });

  it('works unchanged on mainnet (chain id 1, no settlement-contract override)', async () => {
    const trader = await newTrader(SupportedChainId.MAINNET);
    const { fullAppData, hash } = appDataDocument();
    await mainnetApi.uploadAppData(hash, fullAppData);
    const order = unsignedOrder(trader, hash);
    const signed = await OrderSigningUtils.signOrder(
      order,
      SupportedChainId.MAINNET,
      trader.signer,
    );
    const uid = await mainnetApi.sendOrder({
      ...order,
      appData: fullAppData,
      appDataHash: hash,
      signature: signed.signature,
      signingScheme: SigningScheme.EIP712,
      from: trader.address,
    });
    const { orderId } = await OrderSigningUtils.generateOrderId(
      SupportedChainId.MAINNET,
      order as unknown as ContractsOrder,
      { owner: trader.address },
    );
    expect(uid).to.equal(orderId);
    expect(await mainnetApi.getOrder(uid)).to.include({ uid, status: 'open' });
    // Networks are separate books: the devnet does not know the mainnet order.
    expect((await rejection(devnetApi.getOrder(uid))).response.status).to.equal(404);
  });
});
