/**
 * Settling orders for real on the test chain, so chain tests see genuine GPv2Settlement logs:
 * the allow-listed solver sends `settle` calldata built by src/chain/settlement-call.ts.
 */
import {
  Contract,
  ContractFactory,
  Wallet,
  getBytes,
  isCallException,
  type BaseWallet,
  type TransactionReceipt,
} from 'ethers';
import {
  encodeSettle,
  type SettlementPlan,
  type SettlementTrade,
} from '../../src/chain/settlement-call.js';
import type { Address, Hex, OrderData } from '../../src/domain/events.js';
import type { TestChain } from './chain.js';
import {
  ORDER_TYPES,
  appDataHash,
  domain,
  newWallet,
  orderDigest,
  orderUid,
  typedOrder,
  type EcdsaScheme,
} from './signing.js';
import { compileContract } from './solidity.js';

/** A signed order with its owner: a trade before the solver decides how much of it executes. */
export type SignedTradeInput = Omit<
  SettlementTrade,
  'executedAmount' | 'sellTokenIndex' | 'buyTokenIndex'
>;

/** Each trade pointed at the first of `tokens` that is its sell token and its buy token. */
export function indexedTrades(
  tokens: readonly Address[],
  trades: readonly Omit<SettlementTrade, 'sellTokenIndex' | 'buyTokenIndex'>[],
): SettlementTrade[] {
  const indexOf = (token: Address) => {
    const index = tokens.findIndex((t) => t.toLowerCase() === token.toLowerCase());
    if (index < 0) throw new Error(`token ${token} is not in the settlement's tokens`);
    return index;
  };
  return trades.map((trade) => ({
    ...trade,
    sellTokenIndex: indexOf(trade.order.sellToken),
    buyTokenIndex: indexOf(trade.order.buyToken),
  }));
}

export interface SignedTrade extends SignedTradeInput {
  digest: Hex;
  uid: Hex;
}

/** The order's EIP-712 digest and UID under the test chain's settlement domain. */
export function orderIdentity(
  chain: TestChain,
  order: OrderData,
  owner: Address,
): { digest: Hex; uid: Hex } {
  const { chainId, settlement } = chain.deployment;
  const digest = orderDigest(chainId, order, settlement);
  return { digest, uid: orderUid(digest, owner, order.validTo) };
}

/** `wallet` signs `order` for the test chain's settlement, as a client would for the API. */
export async function signTrade(
  chain: TestChain,
  wallet: BaseWallet,
  order: OrderData,
  scheme: EcdsaScheme = 'eip712',
): Promise<SignedTrade> {
  const owner = wallet.address.toLowerCase() as Address;
  const { digest, uid } = orderIdentity(chain, order, owner);
  const { chainId, settlement } = chain.deployment;
  const signature =
    scheme === 'eip712'
      ? await wallet.signTypedData(domain(chainId, settlement), ORDER_TYPES, typedOrder(order))
      : await wallet.signMessage(getBytes(digest));
  return { order, owner, signingScheme: scheme, signature: signature as Hex, digest, uid };
}

/**
 * Deploys test/support/contracts/Eip1271Wallet.sol owned by `owner`, who pays for the
 * deployment and is the only one who may `execute` through the returned contract (or hand it
 * to another owner with `setOwner`, withdrawing its signatures).
 */
export async function deployEip1271Wallet(
  chain: TestChain,
  owner: BaseWallet,
): Promise<{ address: Address; contract: Contract }> {
  const { abi, bytecode } = compileContract('Eip1271Wallet.sol', 'Eip1271Wallet');
  const signer = owner.connect(chain.provider);
  const deployed = await new ContractFactory(abi, bytecode, signer).deploy(owner.address);
  await deployed.waitForDeployment();
  const address = (await deployed.getAddress()).toLowerCase() as Address;
  return { address, contract: new Contract(address, abi, signer) };
}

/**
 * Sends `plan` as the devnet's allow-listed solver and returns the mined receipt. A revert
 * throws with the contract's reason (e.g. "GPv2: invalid eip1271 signature").
 */
export async function settleOrders(
  chain: TestChain,
  plan: SettlementPlan,
): Promise<TransactionReceipt> {
  const solver = new Wallet(chain.deployment.solver.privateKey, chain.provider);
  try {
    const tx = await solver.sendTransaction({
      to: chain.deployment.settlement,
      data: encodeSettle(plan),
    });
    const receipt = await tx.wait();
    if (receipt === null) throw new Error(`settle transaction ${tx.hash} has no receipt`);
    return receipt;
  } catch (error) {
    // Gas estimation replays the call first, so a revert surfaces here with its decoded reason.
    if (isCallException(error)) {
      throw new Error(`settle reverted: ${error.reason ?? error.shortMessage}`, { cause: error });
    }
    throw error;
  }
}

/**
 * The plan matching two opposite fill-or-kill sell orders directly: `a` sells X for Y, `b`
 * sells exactly the Y that `a` asks for and asks for at most the X that `a` sells.
 *
 * Prices p[X] = a.buyAmount, p[Y] = a.sellAmount put `a` exactly at its limit (it receives
 * a.sellAmount·p[X]/p[Y] = a.buyAmount). `b` then receives b.sellAmount·p[Y]/p[X] = a.sellAmount
 * ≥ b.buyAmount, its limit, and the settlement pays out exactly what it took in (fees aside,
 * which stay in the contract).
 */
export function coincidenceOfWants(a: SignedTradeInput, b: SignedTradeInput): SettlementPlan {
  for (const trade of [a, b]) {
    if (trade.order.kind !== 'sell' || trade.order.partiallyFillable)
      throw new Error('coincidenceOfWants takes fill-or-kill sell orders');
  }
  const same = (x: Address, y: Address) => x.toLowerCase() === y.toLowerCase();
  if (!same(a.order.sellToken, b.order.buyToken) || !same(a.order.buyToken, b.order.sellToken))
    throw new Error('the orders do not trade opposite tokens');
  if (BigInt(b.order.sellAmount) !== BigInt(a.order.buyAmount))
    throw new Error(`b sells ${b.order.sellAmount}, a asks for ${a.order.buyAmount}`);
  if (BigInt(b.order.buyAmount) > BigInt(a.order.sellAmount))
    throw new Error(`b asks for ${b.order.buyAmount}, a sells only ${a.order.sellAmount}`);
  const tokens = [a.order.sellToken, a.order.buyToken];
  return {
    tokens,
    clearingPrices: [BigInt(a.order.buyAmount), BigInt(a.order.sellAmount)],
    trades: indexedTrades(
      tokens,
      [a, b].map(({ order, owner, signingScheme, signature }) => ({
        order,
        owner,
        signingScheme,
        signature,
        executedAmount: 0n,
      })),
    ),
  };
}

/** A fill-or-kill sell order with the empty app data `{}`, valid for an hour. */
export function sellOrder(
  fields: Pick<OrderData, 'sellToken' | 'buyToken' | 'sellAmount' | 'buyAmount'> &
    Partial<OrderData>,
): OrderData {
  return {
    receiver: null,
    validTo: Math.floor(Date.now() / 1000) + 3600,
    appData: appDataHash('{}'),
    feeAmount: '0',
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    ...fields,
  };
}

/** The POST /api/v1/orders body of a signed trade whose app data is `{}`. */
export function orderBody(trade: SignedTradeInput, extra: Record<string, unknown> = {}) {
  return {
    ...trade.order,
    appData: '{}',
    appDataHash: trade.order.appData,
    signingScheme: trade.signingScheme,
    signature: trade.signature,
    from: trade.owner,
    ...extra,
  };
}

let pairs = 0;

/**
 * A coincidence of wants between the devnet's first two demo accounts, signed but not placed:
 * the first sells X for Y, the second sells exactly that Y for the first's X. The amounts change
 * with every call, so every UID is new.
 */
export async function signMatchingPair(chain: TestChain): Promise<[SignedTrade, SignedTrade]> {
  const [first, second] = chain.deployment.accounts.map((a) => new Wallet(a.privateKey));
  const [x, y] = chain.deployment.tokens.map((t) => t.address);
  const sellAmount = String(10n ** 16n + BigInt(++pairs));
  const buyAmount = String(2n * 10n ** 16n);
  const a = await signTrade(
    chain,
    first!,
    sellOrder({ sellToken: x!, buyToken: y!, sellAmount, buyAmount }),
  );
  const b = await signTrade(
    chain,
    second!,
    sellOrder({ sellToken: y!, buyToken: x!, sellAmount: buyAmount, buyAmount: sellAmount }),
  );
  return [a, b];
}

let cows = 0;

/**
 * Opposite orders of two owners on the devnet: about 1 WETH against 3,000 DUSD (the pools'
 * price), each asking for 0.1% less than the other gives, which is more than the pools give after
 * their fee: neither settles alone, the two settle together as a coincidence of wants. The
 * owners must hold and have approved WETH and DUSD respectively. New amounts on every call.
 * `appData`: each order's full app data (default `{}`); place them with
 * `orderBody(trade, { appData })`.
 */
export async function signCowPair(
  chain: TestChain,
  [first, second]: readonly [BaseWallet, BaseWallet],
  appData: readonly [string, string] = ['{}', '{}'],
): Promise<[SignedTrade, SignedTrade]> {
  const weth = chain.deployment.weth.address;
  const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
  const wethSold = 10n ** 18n + BigInt(++cows);
  const dusdSold = wethSold * 3000n;
  const asked = (amount: bigint) => String((amount * 999n) / 1000n);
  return [
    await signTrade(
      chain,
      first,
      sellOrder({
        sellToken: weth,
        buyToken: dusd,
        sellAmount: String(wethSold),
        buyAmount: asked(dusdSold),
        appData: appDataHash(appData[0]),
      }),
    ),
    await signTrade(
      chain,
      second,
      sellOrder({
        sellToken: dusd,
        buyToken: weth,
        sellAmount: String(dusdSold),
        buyAmount: asked(wethSold),
        appData: appDataHash(appData[1]),
      }),
    ),
  ];
}

/** A CoW pair of two new owners, the WETH seller and the DUSD seller funded on `chain`. */
export async function fundedCowPair(chain: TestChain): Promise<[SignedTrade, SignedTrade]> {
  const pair = [newWallet(), newWallet()] as const;
  const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
  await chain.fund(pair[0].address as Address, chain.deployment.weth.address, 2n * 10n ** 18n);
  await chain.fund(pair[1].address as Address, dusd, 10_000n * 10n ** 18n);
  return signCowPair(chain, pair);
}
