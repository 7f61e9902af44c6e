/**
 * Auction orders as the cut takes them in, for suites about what happens to an auction: a fill-
 * or-kill limit order selling 1 WETH for at least 2,900 DUSD, changed by `fields`.
 */
import type { Address, AuctionOrder, OrderUid } from '../../src/domain/events.js';

const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const DUSD: Address = '0x0000000000000000000000000000000000000001';
const OWNER: Address = '0x1111111111111111111111111111111111111111';
const E18 = 10n ** 18n;

/** The `n`th test order's UID. */
export const orderUid = (n: number): OrderUid => `0x${n.toString(16).padStart(112, '0')}`;

export function auctionOrder(n: number, fields: Partial<AuctionOrder> = {}): AuctionOrder {
  return {
    uid: orderUid(n),
    owner: OWNER,
    sellToken: WETH,
    buyToken: DUSD,
    receiver: null,
    sellAmount: E18.toString(),
    buyAmount: (2_900n * E18).toString(),
    validTo: 2_000_000_000,
    appData: `0x${'00'.repeat(32)}`,
    feeAmount: '0',
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    created: 1_700_000_000,
    executed: '0',
    preInteractions: [],
    postInteractions: [],
    class: 'limit',
    signingScheme: 'eip712',
    signature: `0x${'11'.repeat(65)}`,
    protocolFees: [],
    ...fields,
  };
}
