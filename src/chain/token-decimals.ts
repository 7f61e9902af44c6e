/**
 * An ERC-20's `decimals()`, read with one `eth_call` and kept for the life of the process: a
 * token's decimals never change. A contract that reverts or answers nothing has none (null);
 * that answer is not kept, since a contract may yet be deployed at the address.
 */
import { isError } from 'ethers';
import type { Address } from '../domain/events.js';
import type { ChainRpc } from './rpc.js';

export interface TokenDecimals {
  /** The token's decimals; null when it has no `decimals()`. */
  of(token: Address): Promise<number | null>;
}

/** Selector of `decimals()`. */
const DECIMALS = '0x313ce567';
/** One ABI word holding a uint8. */
const WORD_LENGTH = 2 + 64;
const MAX_DECIMALS = 255n;

export function createTokenDecimals(rpc: ChainRpc): TokenDecimals {
  const known = new Map<Address, number>();

  const read = async (token: Address): Promise<number | null> => {
    let result: string;
    try {
      result = await rpc.request(`decimals of ${token}`, (p) =>
        p.send('eth_call', [{ to: token, data: DECIMALS }, 'latest']),
      );
    } catch (error) {
      if (isError(error, 'CALL_EXCEPTION')) return null;
      throw error;
    }
    if (result.length < WORD_LENGTH) return null;
    const value = BigInt(result.slice(0, WORD_LENGTH));
    return value <= MAX_DECIMALS ? Number(value) : null;
  };

  return {
    async of(token) {
      const cached = known.get(token);
      if (cached !== undefined) return cached;
      const decimals = await read(token);
      if (decimals !== null) known.set(token, decimals);
      return decimals;
    },
  };
}
