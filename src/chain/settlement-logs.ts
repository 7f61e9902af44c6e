/**
 * The settlement contract's logs the indexer follows, turned into the ledger's chain facts.
 * Pure decoding: the caller supplies the block's timestamp.
 */
import { Interface, type Log } from 'ethers';
import type { Address, ChainCoordinates, ChainFact, Hex, OrderUid } from '../domain/events.js';
import type { Network } from '../domain/networks.js';

export const settlementEvents = new Interface([
  'event Trade(address indexed owner, address sellToken, address buyToken, uint256 sellAmount, uint256 buyAmount, uint256 feeAmount, bytes orderUid)',
  'event Settlement(address indexed solver)',
  'event OrderInvalidated(address indexed owner, bytes orderUid)',
  'event PreSignature(address indexed owner, bytes orderUid, bool signed)',
]);

/** topic0 of every followed event, for `eth_getLogs`. */
export const SETTLEMENT_TOPICS: readonly string[] = [
  'Trade',
  'Settlement',
  'OrderInvalidated',
  'PreSignature',
].map((name) => settlementEvents.getEvent(name)!.topicHash);

const lower = <T extends Hex>(value: string) => value.toLowerCase() as T;

export function coordinatesOf(network: Network, log: Log): ChainCoordinates {
  return {
    chainId: network.chainId,
    blockNumber: log.blockNumber,
    blockHash: lower(log.blockHash),
    logIndex: log.index,
    txHash: lower(log.transactionHash),
  };
}

/** The fact a followed log states, or null for a log of another event or another contract. */
export function factOf(network: Network, log: Log, blockTimestamp: number): ChainFact | null {
  if (lower(log.address) !== network.settlementContract) return null;
  const parsed = settlementEvents.parseLog({ topics: [...log.topics], data: log.data });
  if (!parsed) return null;
  const chain = coordinatesOf(network, log);
  const at = new Date(blockTimestamp * 1000).toISOString();
  const args = parsed.args;
  switch (parsed.name) {
    case 'Trade':
      return {
        type: 'TradeSettled',
        data: {
          network: network.name,
          uid: lower<OrderUid>(args.orderUid),
          owner: lower<Address>(args.owner),
          auctionId: null,
          sellToken: lower<Address>(args.sellToken),
          buyToken: lower<Address>(args.buyToken),
          sellAmount: String(args.sellAmount),
          buyAmount: String(args.buyAmount),
          feeAmount: String(args.feeAmount),
          settledAt: at,
          chain,
        },
      };
    case 'Settlement':
      return {
        type: 'SettlementObserved',
        data: { network: network.name, solver: lower<Address>(args.solver), settledAt: at, chain },
      };
    case 'OrderInvalidated':
      return {
        type: 'OrderCancelled',
        data: {
          network: network.name,
          uid: lower<OrderUid>(args.orderUid),
          source: 'chain',
          reason: 'invalidateOrder',
          cancelledAt: at,
          by: lower<Address>(args.owner),
          chain,
        },
      };
    case 'PreSignature':
      return {
        type: 'PreSignatureSet',
        data: {
          network: network.name,
          uid: lower<OrderUid>(args.orderUid),
          owner: lower<Address>(args.owner),
          signed: Boolean(args.signed),
          chain,
        },
      };
    default:
      return null;
  }
}
