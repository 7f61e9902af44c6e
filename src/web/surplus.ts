/**
 * What a trade got beyond its order's limit price, in native-token atoms: the surplus token's
 * amount (the buy token of a sell order, the sell token of a buy order) beyond what the limit
 * asked, at the auction's native price, floored at 0 (GET /users/{address}/total_surplus sums
 * the same per trade).
 */

export interface Limit {
  kind: 'sell' | 'buy';
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  buyAmount: string;
}

const E18 = 10n ** 18n;

export function tradeSurplus(
  order: Limit,
  executed: { sell: bigint; buy: bigint },
  prices: Record<string, string>,
): bigint {
  const [limitSell, limitBuy] = [BigInt(order.sellAmount), BigInt(order.buyAmount)];
  if (limitSell === 0n || limitBuy === 0n) return 0n;
  const surplus =
    order.kind === 'sell'
      ? executed.buy - (executed.sell * limitBuy + limitSell - 1n) / limitSell
      : (executed.buy * limitSell) / limitBuy - executed.sell;
  const token = order.kind === 'sell' ? order.buyToken : order.sellToken;
  const price = BigInt(prices[token.toLowerCase()] ?? '0');
  return surplus > 0n ? (surplus * price) / E18 : 0n;
}
