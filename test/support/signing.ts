/**
 * Building and signing GPv2 orders and cancellations for tests, independently of src/domain:
 * typed data goes through ethers v6 (`TypedDataEncoder`, `Wallet.signTypedData`), ethsign is
 * `signMessage` over the 32-byte digest, and the UID is packed with `solidityPacked`. A bug in
 * the service's own hashing therefore shows up as a rejected signature or a UID mismatch instead
 * of cancelling out.
 *
 * The defaults make a valid order: a sell order of 1 WETH for 2,000 DAI, `validTo = now + 1800`,
 * `feeAmount "0"`, app data `"{}"` (sent as the full document with its hash, like the SDK),
 * `partiallyFillable false`, `from` = the signer. Every field can be overridden.
 */
import {
  BaseWallet,
  SigningKey,
  TypedDataEncoder,
  Wallet,
  getAddress,
  getBytes,
  hexlify,
  keccak256,
  randomBytes,
  solidityPacked,
  toUtf8Bytes,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers';

/** GPv2Settlement: the same address on every chain, devnet included (reference §8). */
export const SETTLEMENT_CONTRACT = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
export const CHAIN_ID = { mainnet: 1, devnet: 31337 } as const;

/** Well-known mainnet tokens (checksummed, as the SDK sends them). */
export const TOKENS = {
  WETH: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
  DAI: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
  USDC: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
} as const;

export const ORDER_TYPES: Record<string, TypedDataField[]> = {
  Order: [
    { name: 'sellToken', type: 'address' },
    { name: 'buyToken', type: 'address' },
    { name: 'receiver', type: 'address' },
    { name: 'sellAmount', type: 'uint256' },
    { name: 'buyAmount', type: 'uint256' },
    { name: 'validTo', type: 'uint32' },
    { name: 'appData', type: 'bytes32' },
    { name: 'feeAmount', type: 'uint256' },
    { name: 'kind', type: 'string' },
    { name: 'partiallyFillable', type: 'bool' },
    { name: 'sellTokenBalance', type: 'string' },
    { name: 'buyTokenBalance', type: 'string' },
  ],
};
export const CANCELLATIONS_TYPES: Record<string, TypedDataField[]> = {
  OrderCancellations: [{ name: 'orderUids', type: 'bytes[]' }],
};
export const CANCELLATION_TYPES: Record<string, TypedDataField[]> = {
  OrderCancellation: [{ name: 'orderUid', type: 'bytes' }],
};

export type EcdsaScheme = 'eip712' | 'ethsign';
export type Hex = `0x${string}`;

/** The signed order struct, with `appData` as the full document or as a 32-byte hash. */
export interface OrderParams {
  sellToken: string;
  buyToken: string;
  /** null (or the zero address) means the owner; signed as the zero address. */
  receiver: string | null;
  sellAmount: string;
  buyAmount: string;
  validTo: number;
  /** The full app-data JSON document, or a 0x-prefixed 32-byte hash (legacy form). */
  appData: string;
  feeAmount: string;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  sellTokenBalance: 'erc20' | 'external' | 'internal';
  buyTokenBalance: 'erc20' | 'internal';
}

/**
 * The POST /api/v1/orders body (reference §1.2 `OrderCreation`): the signed fields plus the
 * signature. Balances are plain strings so tests can send values the service must refuse.
 */
export type OrderCreationBody = Omit<OrderParams, 'sellTokenBalance' | 'buyTokenBalance'> & {
  sellTokenBalance: string;
  buyTokenBalance: string;
  appDataHash?: string | null;
  signingScheme: 'eip712' | 'ethsign' | 'presign' | 'eip1271';
  signature: string;
  from?: string | null;
  quoteId?: number | null;
  [extra: string]: unknown;
};

export interface SignOrderOptions {
  /**
   * How `appData` travels in the body: `both` (document + `appDataHash`, what the SDK sends),
   * `full` (document only) or `hash` (the 32-byte hash only). Default `both`; a hash-valued
   * `appData` is always sent as `hash`.
   */
  appDataForm?: 'both' | 'full' | 'hash';
  /** The `from` field: default the signer's address; null sends `from: null`; omit with `omitFrom`. */
  from?: string | null;
  omitFrom?: boolean;
  quoteId?: number | null;
  /** The EIP-712 verifying contract; default the settlement contract. */
  verifyingContract?: string;
  /** Merged into the body last, after signing: for tampering and extra fields. */
  body?: Record<string, unknown>;
  /** `now` in Unix seconds for the default `validTo` (a test's controlled clock). */
  nowSeconds?: number;
}

export interface SignedOrder {
  body: OrderCreationBody;
  /** Lowercase 0x + 112 hex characters. */
  uid: Hex;
  digest: Hex;
  /** Lowercase owner address. */
  owner: Hex;
  order: OrderParams;
  /** keccak256 of the app-data document (or the given hash). */
  appDataHash: Hex;
}

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** keccak256 of the exact UTF-8 bytes of the document (reference §5: no canonicalisation). */
export function appDataHash(document: string): Hex {
  return keccak256(toUtf8Bytes(document)) as Hex;
}

/** keccak("{}"), the default app data's hash. */
export const EMPTY_APP_DATA_HASH = appDataHash('{}');

/** A fresh random wallet (faster than `Wallet.createRandom`, which derives a mnemonic). */
export function newWallet(): Wallet {
  return new Wallet(hexlify(randomBytes(32)));
}

export function defaultOrder(
  overrides: Partial<OrderParams> = {},
  now = nowSeconds(),
): OrderParams {
  return {
    sellToken: TOKENS.WETH,
    buyToken: TOKENS.DAI,
    receiver: null,
    sellAmount: '1000000000000000000',
    buyAmount: '2000000000000000000000',
    validTo: now + 1800,
    appData: '{}',
    feeAmount: '0',
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    ...overrides,
  };
}

export function domain(
  chainId: number,
  verifyingContract: string = SETTLEMENT_CONTRACT,
): TypedDataDomain {
  return { name: 'Gnosis Protocol', version: 'v2', chainId, verifyingContract };
}

export function domainSeparator(
  chainId: number,
  verifyingContract: string = SETTLEMENT_CONTRACT,
): Hex {
  return TypedDataEncoder.hashDomain(domain(chainId, verifyingContract)) as Hex;
}

function hashOf(order: OrderParams): Hex {
  return BYTES32.test(order.appData)
    ? (order.appData.toLowerCase() as Hex)
    : appDataHash(order.appData);
}

/** The struct as EIP-712 sees it: receiver null → zero address, appData → its hash. */
export function typedOrder(order: OrderParams): Record<string, unknown> {
  return {
    ...order,
    receiver: order.receiver ?? ZERO_ADDRESS,
    appData: hashOf(order),
  };
}

export function orderDigest(chainId: number, order: OrderParams, verifyingContract?: string): Hex {
  return TypedDataEncoder.hash(
    domain(chainId, verifyingContract),
    ORDER_TYPES,
    typedOrder(order),
  ) as Hex;
}

/** UID = digest(32) ‖ owner(20) ‖ validTo(4, big-endian), lowercase. */
export function orderUid(digest: string, owner: string, validTo: number): Hex {
  return solidityPacked(
    ['bytes32', 'address', 'uint32'],
    [digest, owner, validTo],
  ).toLowerCase() as Hex;
}

function orderBody(
  order: OrderParams,
  signingScheme: OrderCreationBody['signingScheme'],
  signature: string,
  owner: string,
  options: SignOrderOptions,
): OrderCreationBody {
  const hash = hashOf(order);
  const isHash = BYTES32.test(order.appData);
  const form = isHash ? 'hash' : (options.appDataForm ?? 'both');
  const body: OrderCreationBody = {
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    receiver: order.receiver,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    validTo: order.validTo,
    appData: form === 'hash' ? hash : order.appData,
    ...(form === 'both' ? { appDataHash: hash } : {}),
    feeAmount: order.feeAmount,
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    signingScheme,
    signature,
  };
  if (!options.omitFrom) body.from = options.from === undefined ? owner : options.from;
  if (options.quoteId !== undefined) body.quoteId = options.quoteId;
  return { ...body, ...options.body } as OrderCreationBody;
}

/** Signs the 32-byte digest with the chosen ECDSA scheme: r ‖ s ‖ v, v ∈ {27, 28}. */
async function signDigest(
  wallet: BaseWallet,
  scheme: EcdsaScheme,
  typed: {
    domain: TypedDataDomain;
    types: Record<string, TypedDataField[]>;
    value: Record<string, unknown>;
  },
  digest: string,
): Promise<Hex> {
  if (scheme === 'eip712') {
    return (await wallet.signTypedData(typed.domain, typed.types, typed.value)) as Hex;
  }
  return (await wallet.signMessage(getBytes(digest))) as Hex;
}

/**
 * Signs an order (defaults: see the file comment) and returns the API body and the UID the
 * service must answer with.
 */
export async function signOrder(
  wallet: BaseWallet,
  chainId: number,
  overrides: Partial<OrderParams> = {},
  scheme: EcdsaScheme = 'eip712',
  options: SignOrderOptions = {},
): Promise<SignedOrder> {
  const order = defaultOrder(overrides, options.nowSeconds);
  const typedDomain = domain(chainId, options.verifyingContract);
  const value = typedOrder(order);
  const digest = TypedDataEncoder.hash(typedDomain, ORDER_TYPES, value) as Hex;
  const signature = await signDigest(
    wallet,
    scheme,
    { domain: typedDomain, types: ORDER_TYPES, value },
    digest,
  );
  const owner = wallet.address.toLowerCase() as Hex;
  return {
    body: orderBody(order, scheme, signature, wallet.address, options),
    uid: orderUid(digest, owner, order.validTo),
    digest,
    owner,
    order,
    appDataHash: hashOf(order),
  };
}

/**
 * A pre-signed order (`signingScheme: presign`, signature `0x`): the owner would call
 * `setPreSignature(uid, true)` on chain. Until then the order is `presignaturePending`.
 * `from` is required for presign orders (reference §4.1 step 5).
 */
export function presignOrder(
  owner: string,
  chainId: number,
  overrides: Partial<OrderParams> = {},
  options: SignOrderOptions = {},
): SignedOrder {
  const order = defaultOrder(overrides, options.nowSeconds);
  const digest = orderDigest(chainId, order, options.verifyingContract);
  const checksummed = getAddress(owner);
  return {
    body: orderBody(order, 'presign', '0x', checksummed, options),
    uid: orderUid(digest, checksummed, order.validTo),
    digest,
    owner: checksummed.toLowerCase() as Hex,
    order,
    appDataHash: hashOf(order),
  };
}

export interface CancellationsBody {
  orderUids: string[];
  signature: Hex;
  signingScheme: EcdsaScheme;
}

export function cancellationsDigest(
  chainId: number,
  uids: readonly string[],
  verifyingContract?: string,
): Hex {
  return TypedDataEncoder.hash(domain(chainId, verifyingContract), CANCELLATIONS_TYPES, {
    orderUids: [...uids],
  }) as Hex;
}

export function cancellationDigest(chainId: number, uid: string, verifyingContract?: string): Hex {
  return TypedDataEncoder.hash(domain(chainId, verifyingContract), CANCELLATION_TYPES, {
    orderUid: uid,
  }) as Hex;
}

/** The DELETE /api/v1/orders body: `OrderCancellations(bytes[] orderUids)` signed by `wallet`. */
export async function signCancellations(
  wallet: BaseWallet,
  chainId: number,
  uids: readonly string[],
  scheme: EcdsaScheme = 'eip712',
  verifyingContract?: string,
): Promise<CancellationsBody> {
  const typedDomain = domain(chainId, verifyingContract);
  const value = { orderUids: [...uids] };
  const digest = TypedDataEncoder.hash(typedDomain, CANCELLATIONS_TYPES, value);
  const signature = await signDigest(
    wallet,
    scheme,
    { domain: typedDomain, types: CANCELLATIONS_TYPES, value },
    digest,
  );
  return { orderUids: [...uids], signature, signingScheme: scheme };
}

/** The deprecated DELETE /api/v1/orders/{uid} body: `OrderCancellation(bytes orderUid)`. */
export async function signCancellation(
  wallet: BaseWallet,
  chainId: number,
  uid: string,
  scheme: EcdsaScheme = 'eip712',
  verifyingContract?: string,
): Promise<{ signature: Hex; signingScheme: EcdsaScheme }> {
  const typedDomain = domain(chainId, verifyingContract);
  const value = { orderUid: uid };
  const digest = TypedDataEncoder.hash(typedDomain, CANCELLATION_TYPES, value);
  const signature = await signDigest(
    wallet,
    scheme,
    { domain: typedDomain, types: CANCELLATION_TYPES, value },
    digest,
  );
  return { signature, signingScheme: scheme };
}

// ---------------------------------------------------------------------------------------------
// Fast path for benchmarks: hash the struct by hand (type hash and constant strings hashed once,
// the domain separator once per chain) and sign the digest with `SigningKey.sign`. Checked
// against the ethers typed-data path by `createFastOrderSigner` itself on its first order.
// ---------------------------------------------------------------------------------------------

const ORDER_TYPE_STRING =
  'Order(address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,' +
  'uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,' +
  'string sellTokenBalance,string buyTokenBalance)';

function word(value: bigint): string {
  return value.toString(16).padStart(64, '0');
}

function addressWord(address: string): string {
  return address.slice(2).toLowerCase().padStart(64, '0');
}

export interface FastOrderSigner {
  /** Signs with eip712 (default) or ethsign; same result shape as `signOrder`. */
  sign(
    key: SigningKey,
    overrides?: Partial<OrderParams>,
    scheme?: EcdsaScheme,
    options?: SignOrderOptions,
  ): SignedOrder;
}

export function createFastOrderSigner(
  chainId: number,
  verifyingContract: string = SETTLEMENT_CONTRACT,
): FastOrderSigner {
  const separator = domainSeparator(chainId, verifyingContract).slice(2);
  const typeHash = keccak256(toUtf8Bytes(ORDER_TYPE_STRING)).slice(2);
  const textHash = new Map<string, string>();
  const hashText = (s: string): string => {
    let h = textHash.get(s);
    if (h === undefined) {
      h = keccak256(toUtf8Bytes(s)).slice(2);
      textHash.set(s, h);
    }
    return h;
  };
  const appDataHashes = new Map<string, Hex>();
  const addresses = new WeakMap<SigningKey, string>();
  let checked = false;

  return {
    sign(key, overrides = {}, scheme = 'eip712', options = {}) {
      const order = defaultOrder(overrides, options.nowSeconds);
      let hash = appDataHashes.get(order.appData);
      if (hash === undefined) {
        hash = hashOf(order);
        appDataHashes.set(order.appData, hash);
      }
      const struct =
        '0x' +
        typeHash +
        addressWord(order.sellToken) +
        addressWord(order.buyToken) +
        addressWord(order.receiver ?? ZERO_ADDRESS) +
        word(BigInt(order.sellAmount)) +
        word(BigInt(order.buyAmount)) +
        word(BigInt(order.validTo)) +
        hash.slice(2) +
        word(BigInt(order.feeAmount)) +
        hashText(order.kind) +
        word(order.partiallyFillable ? 1n : 0n) +
        hashText(order.sellTokenBalance) +
        hashText(order.buyTokenBalance);
      const digest = keccak256('0x1901' + separator + keccak256(struct).slice(2)) as Hex;
      if (!checked) {
        const expected = orderDigest(chainId, order, verifyingContract);
        if (expected !== digest)
          throw new Error(`fast digest ${digest} differs from ethers ${expected}`);
        checked = true;
      }
      const signed = scheme === 'eip712' ? key.sign(digest) : key.sign(ethSignedDigest(digest));
      let address = addresses.get(key);
      if (address === undefined) {
        address = new Wallet(key).address;
        addresses.set(key, address);
      }
      return {
        body: orderBody(order, scheme, signed.serialized, address, options),
        uid: orderUid(digest, address, order.validTo),
        digest,
        owner: address.toLowerCase() as Hex,
        order,
        appDataHash: hash,
      };
    },
  };
}

/** keccak256("\x19Ethereum Signed Message:\n32" ‖ digest): what ethsign signs. */
export function ethSignedDigest(digest: string): Hex {
  return keccak256(
    new Uint8Array([...toUtf8Bytes('\x19Ethereum Signed Message:\n32'), ...getBytes(digest)]),
  ) as Hex;
}
