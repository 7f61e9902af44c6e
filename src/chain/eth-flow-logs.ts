/**
 * The eth-flow contracts' logs the indexer follows (`OrderPlacement`, `OrderInvalidation`,
 * `OrderRefund`), turned into the ledger's chain facts. A placement is recorded whatever it
 * states: one that is not the contract's own order as it holds it carries a placement error
 * (src/domain/eth-flow.ts) and never trades. A log that cannot be decoded at all (no order can
 * be named from it) is left out: no order exists to record it against.
 */
import { AbiCoder, Interface, id, isError } from 'ethers';
import { computeOrderUid, domainSeparator, orderDigest } from '../domain/eip712.js';
import { placementError } from '../domain/eth-flow.js';
import type {
  Address,
  BuyTokenBalance,
  ChainFact,
  Hex,
  OrderData,
  OrderKind,
  OrderUid,
  SellTokenBalance,
} from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import { ethFlowArtifact } from './devnet/artifacts.js';
import { abiWords, coordinatesOf, type RawLog } from './settlement-logs.js';

const ETH_FLOW = new Interface(ethFlowArtifact().abi);
const topic = (name: string) => ETH_FLOW.getEvent(name)!.topicHash;
const TOPICS = {
  placement: topic('OrderPlacement'),
  invalidation: topic('OrderInvalidation'),
  refund: topic('OrderRefund'),
};

/** topic0 of every followed eth-flow event, for `eth_getLogs`. */
export const ETH_FLOW_TOPICS: readonly string[] = Object.values(TOPICS);

/** What the contract holds for an order hash at a block: its trader and deadline. */
export interface HeldOrder {
  owner: Address;
  validTo: number;
}

/** Reads `orders(hash)` of `contract` at `blockNumber`; null when the contract cannot say. */
export type ReadHeldOrder = (
  contract: Address,
  hash: Hex,
  blockNumber: number,
) => Promise<HeldOrder | null>;

const PLACEMENT_DATA = [
  'tuple(address,address,address,uint256,uint256,uint32,bytes32,uint256,bytes32,bool,bytes32,bytes32)',
  'tuple(uint8,bytes)',
  'bytes',
];
const KINDS = new Map<string, OrderKind>([
  [id('sell'), 'sell'],
  [id('buy'), 'buy'],
]);
const BALANCES = new Map<string, SellTokenBalance>([
  [id('erc20'), 'erc20'],
  [id('external'), 'external'],
  [id('internal'), 'internal'],
]);
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
const ORDER_UID_BYTES = 56;

const lower = <T extends Hex>(value: string) => value.toLowerCase() as T;

interface DecodedPlacement {
  order: OrderData;
  scheme: number;
  signature: Hex;
  extra: { quoteId: string; userValidTo: number } | null;
}

/** The placement's order, signature and extra data; null when they cannot be read as such. */
function decodePlacement(data: string): DecodedPlacement | null {
  let fields: ReturnType<AbiCoder['decode']>;
  try {
    fields = AbiCoder.defaultAbiCoder().decode(PLACEMENT_DATA, data);
  } catch {
    return null;
  }
  const [o, [scheme, signature], extraBytes] = fields as unknown as [
    unknown[],
    [bigint, string],
    string,
  ];
  const kind = KINDS.get(o[8] as string);
  const sellTokenBalance = BALANCES.get(o[10] as string);
  const buyTokenBalance = BALANCES.get(o[11] as string);
  if (!kind || !sellTokenBalance || !buyTokenBalance || buyTokenBalance === 'external') return null;
  const receiver = lower<Address>(o[2] as string);
  const order: OrderData = {
    sellToken: lower(o[0] as string),
    buyToken: lower(o[1] as string),
    receiver: receiver === ZERO_ADDRESS ? null : receiver,
    sellAmount: (o[3] as bigint).toString(),
    buyAmount: (o[4] as bigint).toString(),
    validTo: Number(o[5] as bigint),
    appData: lower(o[6] as string),
    feeAmount: (o[7] as bigint).toString(),
    kind,
    partiallyFillable: o[9] as boolean,
    sellTokenBalance,
    buyTokenBalance: buyTokenBalance as BuyTokenBalance,
  };
  // The eth-flow data: an int64 quote id and a uint32 deadline, big-endian.
  const extra =
    extraBytes.length === 2 + 2 * 12
      ? {
          quoteId: BigInt.asIntN(64, BigInt(extraBytes.slice(0, 18))).toString(),
          userValidTo: Number(`0x${extraBytes.slice(18)}`),
        }
      : null;
  return { order, scheme: Number(scheme), signature: lower(signature), extra };
}

/** A `bytes` order UID of the log's data; null when it is not 56 bytes. */
function uidOf(log: RawLog): OrderUid | null {
  try {
    const uid = abiWords(log.data).bytes(0);
    return uid.length === 2 + 2 * ORDER_UID_BYTES ? (uid as OrderUid) : null;
  } catch {
    return null;
  }
}

/** The fact an eth-flow log states, or null for a log of another kind or one beyond reading. */
export async function ethFlowFactOf(
  network: Network,
  log: RawLog,
  blockTimestamp: number,
  readHeld: ReadHeldOrder,
): Promise<ChainFact | null> {
  const contract = lower<Address>(log.address);
  if (!network.ethFlowContracts.includes(contract)) return null;
  const chain = coordinatesOf(network, log);
  const indexed = log.topics[1] ? abiWords(log.topics[1]).address(0) : null;
  switch (log.topics[0]) {
    case TOPICS.placement: {
      const decoded = indexed ? decodePlacement(log.data) : null;
      if (!decoded) return null;
      const { order, scheme, signature, extra } = decoded;
      // The stated owner: the signer an EIP-1271 signature names; the sender of a pre-sign one.
      const owner = scheme === 0 && signature.length === 42 ? (signature as Address) : indexed!;
      const digest = orderDigest(
        order,
        domainSeparator(network.chainId, network.settlementContract),
      );
      const held = extra && (await readHeld(contract, toHex(digest), chain.blockNumber));
      return {
        type: 'EthFlowOrderPlaced',
        data: {
          network: network.name,
          uid: computeOrderUid(digest, owner, order.validTo),
          owner,
          ethFlowContract: contract,
          sender: indexed!,
          order,
          signature,
          userValidTo: extra?.userValidTo ?? order.validTo,
          quoteId: extra?.quoteId ?? null,
          placementError: placementError({
            ethFlowContract: contract,
            wrappedNativeToken: network.wrappedNativeToken,
            order,
            signingScheme: scheme,
            signature,
            extra,
            heldByContract:
              held !== null && held.owner === indexed && held.validTo === extra?.userValidTo,
          }),
          placedAt: new Date(blockTimestamp * 1000).toISOString(),
          chain,
        },
      };
    }
    case TOPICS.invalidation: {
      const uid = uidOf(log);
      if (!uid) return null;
      return {
        type: 'OrderCancelled',
        data: {
          network: network.name,
          uid,
          source: 'chain',
          reason: 'invalidateOrder',
          cancelledAt: new Date(blockTimestamp * 1000).toISOString(),
          by: contract,
          chain,
        },
      };
    }
    case TOPICS.refund: {
      const uid = uidOf(log);
      if (!uid || !indexed) return null;
      return {
        type: 'EthFlowOrderRefunded',
        data: { network: network.name, uid, refunder: indexed, chain },
      };
    }
    default:
      return null;
  }
}

const toHex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}` as Hex;

/** `orders(hash)` through `call`; a revert or an answer that is no such record is null. */
export async function readHeldOrder(
  call: (tx: { to: Address; data: Hex; blockTag: number }) => Promise<string>,
  contract: Address,
  hash: Hex,
  blockNumber: number,
): Promise<HeldOrder | null> {
  let result: string;
  try {
    result = await call({
      to: contract,
      data: ETH_FLOW.encodeFunctionData('orders', [hash]) as Hex,
      blockTag: blockNumber,
    });
  } catch (error) {
    if (isError(error, 'CALL_EXCEPTION')) return null;
    throw error;
  }
  try {
    const [owner, validTo] = ETH_FLOW.decodeFunctionResult('orders', result) as unknown as [
      string,
      bigint,
    ];
    return { owner: lower(owner), validTo: Number(validTo) };
  } catch {
    return null;
  }
}
