/**
 * Talking to the devnet's node: the provider settings every devnet client wants, and
 * transactions the node itself signs (anvil's unlocked dev accounts, or impersonated ones).
 */
import { JsonRpcProvider, toQuantity } from 'ethers';
import { setTimeout as delay } from 'node:timers/promises';
import type { Address } from '../../domain/events.js';
import { DEVNET_CHAIN_ID } from './anvil.js';

/** The provider settings every devnet client wants. */
export function devnetProvider(rpcUrl: string, chainId = DEVNET_CHAIN_ID): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, chainId, {
    staticNetwork: true,
    batchMaxCount: 1,
    // ethers otherwise answers a repeated read within 250 ms from memory, e.g. the code at an
    // address just before and just after deploying there.
    cacheTimeout: -1,
    // anvil mines a transaction just after accepting it: a wait() that misses the receipt at
    // first should not then poll at ethers' default of every 4 s.
    pollingInterval: 20,
  });
}

export interface NodeTransaction {
  from: string;
  /** Absent for a contract creation. */
  to?: string;
  data?: string;
  value?: bigint;
  /**
   * Default: the node's estimate, made on the pending block. It falls short when the block the
   * transaction lands in differs in a way that costs gas, e.g. a Uniswap pair first swapped in a
   * later second than it was updated in also writes its price accumulators.
   */
  gas?: bigint;
}

/** anvil automines: a transaction is in a block moments after it is accepted, if not at once. */
const RECEIPT_DEADLINE_MS = 10_000;
const RECEIPT_POLL_MS = 2;

/**
 * Sends a transaction the node signs: `from` is one of anvil's dev accounts or an impersonated
 * one. No local signing nor gas and fee look-ups, which would triple the round trips. Returns
 * the created contract, if any.
 */
export async function sendFromNode(
  provider: JsonRpcProvider,
  tx: NodeTransaction,
): Promise<Address | null> {
  const quantity = (n: bigint | undefined) => (n === undefined ? undefined : toQuantity(n));
  const params = { ...tx, value: quantity(tx.value), gas: quantity(tx.gas) };
  const hash: string = await provider.send('eth_sendTransaction', [params]);
  const deadline = Date.now() + RECEIPT_DEADLINE_MS;
  for (;;) {
    const receipt = (await provider.send('eth_getTransactionReceipt', [hash])) as {
      status: string;
      contractAddress: string | null;
    } | null;
    if (receipt !== null) {
      if (receipt.status !== '0x1') throw new Error(`transaction ${hash} from ${tx.from} reverted`);
      return receipt.contractAddress === null
        ? null
        : (receipt.contractAddress.toLowerCase() as Address);
    }
    if (Date.now() > deadline)
      throw new Error(`transaction ${hash} not mined after ${RECEIPT_DEADLINE_MS} ms`);
    await delay(RECEIPT_POLL_MS);
  }
}
