/**
 * The settlement contract's logs the indexer follows, turned into the ledger's chain facts.
 * Pure decoding: the caller supplies the block's timestamp. The four layouts are fixed, so they
 * are read straight from the ABI words: ethers' generic `parseLog` cost about 0.5 ms a log,
 * which was half of the indexer's catch-up time.
 */
import { Interface } from 'ethers';
import type { Address, ChainCoordinates, ChainFact, Hex, OrderUid } from '../domain/events.js';
import type { Network } from '../domain/networks.js';

const settlementEvents = new Interface([
  'event Trade(address indexed owner, address sellToken, address buyToken, uint256 sellAmount, uint256 buyAmount, uint256 feeAmount, bytes orderUid)',
  'event Settlement(address indexed solver)',
  'event OrderInvalidated(address indexed owner, bytes orderUid)',
  'event PreSignature(address indexed owner, bytes orderUid, bool signed)',
]);

const topic = (name: string) => settlementEvents.getEvent(name)!.topicHash;
const TOPICS = {
  trade: topic('Trade'),
  settlement: topic('Settlement'),
  invalidated: topic('OrderInvalidated'),
  preSignature: topic('PreSignature'),
};

/** topic0 of every followed event, for `eth_getLogs`. */
export const SETTLEMENT_TOPICS: readonly string[] = Object.values(TOPICS);

/** The 32-byte words of ABI-encoded data, and the values they hold. */
export function abiWords(data: string) {
  const hex = data.slice(2).toLowerCase();
  const word = (i: number) => hex.slice(64 * i, 64 * (i + 1));
  const uint = (i: number) => BigInt(`0x${word(i)}`);
  return {
    address: (i: number) => `0x${word(i).slice(24)}` as Address,
    amount: (i: number) => uint(i).toString(),
    bool: (i: number) => uint(i) !== 0n,
    /** A dynamic `bytes` whose offset is in word `i`. */
    bytes: (i: number) => {
      const at = Number(uint(i) / 32n);
      const length = Number(uint(at));
      return `0x${hex.slice(64 * (at + 1), 64 * (at + 1) + 2 * length)}` as Hex;
    },
  };
}

const lower = <T extends Hex>(value: string) => value.toLowerCase() as T;

/**
 * A log as `eth_getLogs` returns it. The indexer asks for them raw: wrapping ten thousand logs
 * in ethers' `Log` objects took 3 s of a 10 s catch-up.
 */
export interface RawLog {
  address: string;
  topics: readonly string[];
  data: string;
  /** Quantities in hex. */
  blockNumber: string;
  blockHash: string;
  logIndex: string;
  transactionHash: string;
}

export function coordinatesOf(network: Network, log: RawLog): ChainCoordinates {
  return {
    chainId: network.chainId,
    blockNumber: Number(log.blockNumber),
    blockHash: lower(log.blockHash),
    logIndex: Number(log.logIndex),
    txHash: lower(log.transactionHash),
  };
}

/** The fact a followed log states, or null for a log of another event or another contract. */
export function factOf(network: Network, log: RawLog, blockTimestamp: number): ChainFact | null {
  if (lower(log.address) !== network.settlementContract) return null;
  const chain = coordinatesOf(network, log);
  const at = new Date(blockTimestamp * 1000).toISOString();
  const indexed = log.topics[1] ? abiWords(log.topics[1]).address(0) : null;
  const data = abiWords(log.data);
  switch (log.topics[0]) {
    case TOPICS.trade:
      return {
        type: 'TradeSettled',
        data: {
          network: network.name,
          uid: data.bytes(5) as OrderUid,
          owner: indexed!,
          auctionId: null,
          sellToken: data.address(0),
          buyToken: data.address(1),
          sellAmount: data.amount(2),
          buyAmount: data.amount(3),
          feeAmount: data.amount(4),
          settledAt: at,
          chain,
        },
      };
    case TOPICS.settlement:
      return {
        type: 'SettlementObserved',
        data: { network: network.name, solver: indexed!, settledAt: at, chain },
      };
    case TOPICS.invalidated:
      return {
        type: 'OrderCancelled',
        data: {
          network: network.name,
          uid: data.bytes(0) as OrderUid,
          source: 'chain',
          reason: 'invalidateOrder',
          cancelledAt: at,
          by: indexed!,
          chain,
        },
      };
    case TOPICS.preSignature:
      return {
        type: 'PreSignatureSet',
        data: {
          network: network.name,
          uid: data.bytes(0) as OrderUid,
          owner: indexed!,
          signed: data.bool(1),
          chain,
        },
      };
    default:
      return null;
  }
}
