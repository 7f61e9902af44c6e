/**
 * ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)` logs, netted into
 * balance changes. Read from raw `eth_getLogs` JSON, like the settlement logs: ethers' `Log`
 * objects cost more than the arithmetic.
 */
import type { Address } from '../domain/events.js';
import type { RawLog } from './settlement-logs.js';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface BalanceChange {
  token: Address;
  holder: Address;
  /** Signed: what the holder's balance gained (or, negative, lost). */
  delta: bigint;
}

const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
/** An ERC-20 transfer: topic0, `from`, `to`, and the value as one 32-byte data word. */
const TOPICS = 3;
const VALUE_DATA_LENGTH = 2 + 64;

const addressOf = (topic: string) => `0x${topic.slice(-40).toLowerCase()}` as Address;

/**
 * The net change of every holder's balance over these logs; holders whose changes cancel out are
 * left out. The zero address is the other side of mints and burns, not a holder. ERC-721 shares
 * the event's topic0 but indexes its token id (four topics, no data): such logs are skipped.
 */
export function balanceChanges(logs: readonly RawLog[]): BalanceChange[] {
  const deltas = new Map<string, BalanceChange>();
  const add = (token: Address, holder: Address, delta: bigint) => {
    if (holder === ZERO_ADDRESS) return;
    const key = `${token}/${holder}`;
    const change = deltas.get(key);
    if (change) change.delta += delta;
    else deltas.set(key, { token, holder, delta });
  };
  for (const log of logs) {
    if (log.topics.length !== TOPICS || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
    if (log.data.length !== VALUE_DATA_LENGTH) continue;
    const token = log.address.toLowerCase() as Address;
    const value = BigInt(log.data);
    add(token, addressOf(log.topics[1]!), -value);
    add(token, addressOf(log.topics[2]!), value);
  }
  return [...deltas.values()].filter((change) => change.delta !== 0n);
}
