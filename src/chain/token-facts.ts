/**
 * What solvers are told of each token of an auction (the solver engine API's `TokenInfo`): its
 * decimals and symbol, each read once for the life of the process (they never change), and what
 * the settlement contract itself holds of it at the auction's block. A token without the
 * optional metadata has none (null); what cannot be read at all stops the round, as any other
 * chain read of the cut does. Balances, and decimals or a symbol found absent, read at a named
 * block are kept for that block, as the prices' reads are (./prices.ts): the quotes of one block
 * ask the same.
 */
import { AbiCoder, isError } from 'ethers';
import type { Address, Hex } from '../domain/events.js';
import { encodeBalanceOf, decodeUint256 } from './abi-words.js';
import { remember } from './remembered-reads.js';
import type { ChainRpc } from './rpc.js';
import type { TokenDecimals } from './token-decimals.js';

export interface TokenFacts {
  decimals: number | null;
  symbol: string | null;
  availableBalance: bigint;
}

export interface TokenFactsReader {
  /** The facts of each of `tokens`, balances held by `holder` at `block` (default the latest). */
  read(
    tokens: readonly Address[],
    holder: Address,
    block?: number,
  ): Promise<Map<Address, TokenFacts>>;
}

/** Selector of `symbol()`. */
const SYMBOL = '0x95d89b41';
/** Longest symbol kept: a longer one is no symbol a solver can show. */
const MAX_SYMBOL_CHARS = 64;

export function createTokenFacts(rpc: ChainRpc, decimals: TokenDecimals): TokenFactsReader {
  const symbols = new Map<Address, string>();
  /** The reads at the last block named, by what they read. */
  let atBlock: { block: number; reads: Map<string, Promise<unknown>> } | null = null;

  const call = (what: string, to: Address, data: string, tag: string) =>
    rpc.request(what, (node) => node.send('eth_call', [{ to, data }, tag]) as Promise<Hex>, {
      batched: true,
    });

  /** What `read` answers at `block`, read once for that block (each time for the latest). */
  function onceAt<T>(block: number | undefined, key: string, read: (tag: string) => Promise<T>) {
    if (block === undefined) return read('latest');
    // Any other block number, higher or (after a reorg) lower, starts an empty cache.
    if (atBlock?.block !== block) atBlock = { block, reads: new Map() };
    const reads = atBlock.reads as Map<string, Promise<T>>;
    return reads.get(key) ?? remember(reads, key, read(`0x${block.toString(16)}`));
  }

  async function symbolOf(token: Address, tag: string): Promise<string | null> {
    let result: Hex;
    try {
      result = await call(`symbol of ${token}`, token, SYMBOL, tag);
    } catch (error) {
      if (isError(error, 'CALL_EXCEPTION')) return null;
      throw error;
    }
    const symbol = decodeSymbol(result);
    // Kept for good once there is one; an absent one only for the block, since a contract may
    // yet be deployed at the address.
    if (symbol !== null) symbols.set(token, symbol);
    return symbol;
  }

  /** A token that refuses `balanceOf`, or answers nothing an ERC-20 would, holds nothing here. */
  async function balanceOf(token: Address, holder: Address, tag: string): Promise<bigint> {
    try {
      const result = await call(`balanceOf of ${token}`, token, encodeBalanceOf(holder), tag);
      return decodeUint256(result, 'balanceOf');
    } catch (error) {
      if (isError(error, 'CALL_EXCEPTION') || isError(error, 'BAD_DATA')) return 0n;
      throw error;
    }
  }

  return {
    async read(tokens, holder, block) {
      const facts = await Promise.all(
        tokens.map(async (token): Promise<[Address, TokenFacts]> => {
          const [places, symbol, availableBalance] = await Promise.all([
            // Found decimals are kept by `decimals`; absent ones for the block, as symbols are.
            onceAt(block, `decimals/${token}`, () => decimals.of(token)),
            symbols.get(token) ?? onceAt(block, `symbol/${token}`, (tag) => symbolOf(token, tag)),
            onceAt(block, `balance/${holder}/${token}`, (tag) => balanceOf(token, holder, tag)),
          ]);
          return [token, { decimals: places, symbol, availableBalance }];
        }),
      );
      return new Map(facts);
    },
  };
}

/** ERC-20's `string`, or the `bytes32` some early tokens (MKR) answer; null when neither. */
function decodeSymbol(result: Hex): string | null {
  let text: string;
  try {
    text =
      result.length === 2 + 64
        ? Buffer.from(result.slice(2), 'hex').toString('utf8').replace(/\0+$/, '')
        : (AbiCoder.defaultAbiCoder().decode(['string'], result)[0] as string);
  } catch {
    return null;
  }
  // Control characters and the replacement character: not text a solver can show.
  const unprintable = [...text].some((char) => {
    const code = char.codePointAt(0)!;
    return code < 0x20 || code === 0x7f || code === 0xfffd;
  });
  if (text === '' || text.length > MAX_SYMBOL_CHARS || unprintable) return null;
  return text;
}
