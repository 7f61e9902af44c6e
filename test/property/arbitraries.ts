/** fast-check generators and fixtures for domain tests. */
import fc from 'fast-check';
import type {
  Address,
  ChainCoordinates,
  ChainFact,
  DomainEvent,
  Hex,
  OrderData,
  OrderPlacedV1,
  SigningScheme,
} from '../../src/domain/events.js';
import { SETTLEMENT_CONTRACT } from '../../src/domain/networks.js';

const MAX_UINT256 = (1n << 256n) - 1n;

export const hexBytes = (length: number): fc.Arbitrary<Hex> =>
  fc
    .uint8Array({ minLength: length, maxLength: length })
    .map((b): Hex => `0x${Buffer.from(b).toString('hex')}`);

export const address: fc.Arbitrary<Address> = hexBytes(20);

export const uint256 = fc.oneof(
  fc.bigInt({ min: 0n, max: MAX_UINT256 }),
  fc.constantFrom(0n, 1n, MAX_UINT256),
);

export const orderData: fc.Arbitrary<OrderData> = fc.record({
  sellToken: address,
  buyToken: address,
  receiver: fc.option(address, { nil: null }),
  sellAmount: uint256.map(String),
  buyAmount: uint256.map(String),
  validTo: fc.nat({ max: 0xffffffff }),
  appData: hexBytes(32),
  feeAmount: uint256.map(String),
  kind: fc.constantFrom('sell' as const, 'buy' as const),
  partiallyFillable: fc.boolean(),
  sellTokenBalance: fc.constantFrom('erc20' as const, 'external' as const, 'internal' as const),
  buyTokenBalance: fc.constantFrom('erc20' as const, 'internal' as const),
});

export const OWNER: Address = '0x1111111111111111111111111111111111111111';
export const OTHER: Address = '0x2222222222222222222222222222222222222222';

export const sampleOrder: OrderData = {
  sellToken: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  buyToken: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
  receiver: null,
  sellAmount: '1000000',
  buyAmount: '500000000000000',
  validTo: 1_700_000_000,
  appData: '0xb48d38f93eaa084033fc5970bf96e559c33c4cdc07d889ab00b4d63f9590739d',
  feeAmount: '0',
  kind: 'sell',
  partiallyFillable: false,
  sellTokenBalance: 'erc20',
  buyTokenBalance: 'erc20',
};

export function placed(
  uid: Hex,
  overrides: { order?: Partial<OrderData>; owner?: Address; signingScheme?: SigningScheme } = {},
): DomainEvent {
  const data: OrderPlacedV1 = {
    network: 'mainnet',
    uid,
    owner: overrides.owner ?? OWNER,
    order: { ...sampleOrder, ...overrides.order },
    signingScheme: overrides.signingScheme ?? 'eip712',
    signature: '0x',
    class: 'limit',
    creationDate: '2023-11-14T00:00:00.000Z',
    settlementContract: SETTLEMENT_CONTRACT,
    fullAppData: '{}',
    quoteId: null,
    quote: null,
    interactions: { pre: [], post: [] },
  };
  return { type: 'OrderPlaced', data };
}

export const chainAt = (blockNumber: number, logIndex: number): ChainCoordinates => ({
  chainId: 1,
  blockNumber,
  blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
  logIndex,
  txHash: `0x${'ab'.repeat(32)}`,
});

export function trade(
  uid: Hex,
  sell: bigint,
  buy: bigint,
  fee = 0n,
  at = chainAt(1, 0),
): DomainEvent {
  return {
    type: 'TradeSettled',
    data: {
      network: 'mainnet',
      uid,
      owner: OWNER,
      auctionId: 1,
      sellToken: sampleOrder.sellToken,
      buyToken: sampleOrder.buyToken,
      sellAmount: sell.toString(),
      buyAmount: buy.toString(),
      feeAmount: fee.toString(),
      settledAt: '2023-11-14T00:00:00.000Z',
      chain: at,
    },
  };
}

export function cancelled(uid: Hex, source: 'api' | 'chain', by: Address = OWNER): DomainEvent {
  return {
    type: 'OrderCancelled',
    data: {
      network: 'mainnet',
      uid,
      source,
      reason: source === 'api' ? 'signed cancellation' : 'invalidateOrder',
      cancelledAt: '2023-11-14T00:00:00.000Z',
      by,
      ...(source === 'chain' ? { chain: chainAt(2, 0) } : {}),
    },
  };
}

export function preSignature(uid: Hex, signed: boolean, at: ChainCoordinates): DomainEvent {
  return {
    type: 'PreSignatureSet',
    data: { network: 'mainnet', uid, owner: OWNER, signed, chain: at },
  };
}

/** The compensating event a reorg appends for `fact` (a TradeSettled, PreSignatureSet or chain OrderCancelled). */
export function reverted(fact: DomainEvent): DomainEvent {
  if (
    fact.type !== 'TradeSettled' &&
    fact.type !== 'PreSignatureSet' &&
    fact.type !== 'OrderCancelled'
  ) {
    throw new Error(`${fact.type} is not a chain fact`);
  }
  return {
    type: 'ChainFactReverted',
    data: {
      network: fact.data.network,
      // The ledger id of the reverted fact's event; the lifecycle fold does not read it.
      revertedEventId: '00000000-0000-4000-8000-000000000000',
      reverted: fact as ChainFact,
      reason: 'reorg',
    },
  };
}
