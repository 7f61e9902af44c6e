/**
 * Cross-check against the official client (@cowprotocol/cow-sdk 9.2.6, viem adapter): the UID we
 * compute is the SDK's, and what the SDK signs recovers to the signer. No network traffic: the
 * adapter's RPC URL is never called for local-account signing.
 */
import {
  ContractsSigningScheme,
  OrderSigningUtils,
  SupportedChainId,
  setGlobalAdapter,
  signOrder,
} from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { expect } from 'chai';
import { createPublicClient, getAddress, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { mainnet } from 'viem/chains';
import {
  cancellationsDigest,
  computeOrderUid,
  domainSeparator,
  orderDigest,
} from '../../../src/domain/eip712.js';
import type { Hex, OrderData } from '../../../src/domain/events.js';
import { bytesToHex } from '../../../src/bytes/hex.js';
import { SETTLEMENT_CONTRACT } from '../../../src/domain/networks.js';
import { recoverOrderSigner } from '../../../src/domain/signatures.js';
import { sampleOrder } from '../../property/arbitraries.js';

const account = privateKeyToAccount(
  '0x0123456789012345678901234567890123456789012345678901234567890123',
);
const owner = account.address.toLowerCase() as Hex;
const adapter = new ViemAdapter({
  provider: createPublicClient({ chain: mainnet, transport: http('http://127.0.0.1:9') }),
  signer: account,
});

// The SDK's own shape: checksummed addresses as clients send them; it rejects an explicit zero
// receiver, so "no receiver" is left out.
const sdkOrder = (order: OrderData) => ({
  ...order,
  sellToken: getAddress(order.sellToken),
  buyToken: getAddress(order.buyToken),
  receiver: order.receiver === null ? undefined : getAddress(order.receiver),
});

const orders: OrderData[] = [
  sampleOrder,
  {
    ...sampleOrder,
    kind: 'buy',
    partiallyFillable: true,
    receiver: '0x3333333333333333333333333333333333333333',
    sellAmount: (2n ** 255n).toString(),
    validTo: 0xffffffff,
  },
];

describe('@cowprotocol/cow-sdk interoperability', () => {
  const separator = domainSeparator(SupportedChainId.MAINNET, SETTLEMENT_CONTRACT);

  before(() => setGlobalAdapter(adapter));

  it('computes the UID byte for byte as OrderSigningUtils.generateOrderId', async () => {
    for (const order of orders) {
      const sdk = await OrderSigningUtils.generateOrderId(
        SupportedChainId.MAINNET,
        sdkOrder(order) as never,
        { owner: account.address },
      );
      const digest = orderDigest(order, separator);
      expect(bytesToHex(digest)).to.equal(sdk.orderDigest);
      expect(computeOrderUid(digest, owner, order.validTo)).to.equal(sdk.orderId.toLowerCase());
    }
  });

  it('recovers an SDK eip712 order signature to the signer', async () => {
    const signed = await OrderSigningUtils.signOrder(
      sdkOrder(sampleOrder) as never,
      SupportedChainId.MAINNET,
      adapter.signer,
    );
    expect(signed.signingScheme).to.equal('eip712');
    const digest = orderDigest(sampleOrder, separator);
    expect(recoverOrderSigner('eip712', digest, signed.signature as Hex)).to.equal(owner);
  });

  it('recovers an SDK ethsign order signature to the signer', async () => {
    const domain = await OrderSigningUtils.getDomain(SupportedChainId.MAINNET);
    const signed = await signOrder(
      domain,
      sdkOrder(sampleOrder) as never,
      ContractsSigningScheme.ETHSIGN,
      adapter.signer,
    );
    const digest = orderDigest(sampleOrder, separator);
    expect(recoverOrderSigner('ethsign', digest, String(signed.data) as Hex)).to.equal(owner);
    expect(recoverOrderSigner('eip712', digest, String(signed.data) as Hex)).to.not.equal(owner);
  });

  it('recovers an SDK bulk cancellation signature to the signer', async () => {
    const uids = orders.map((o) => computeOrderUid(orderDigest(o, separator), owner, o.validTo));
    const signed = await OrderSigningUtils.signOrderCancellations(
      uids,
      SupportedChainId.MAINNET,
      adapter.signer,
    );
    const digest = cancellationsDigest(uids, separator);
    expect(recoverOrderSigner('eip712', digest, signed.signature as Hex)).to.equal(owner);
  });
});
