/**
 * Contracts the devnet places at the address CoW Protocol's own deployment has on mainnet. Their
 * code is what the committed creation code leaves behind with the constructor's arguments as its
 * immutables, computed by an `eth_call` of the creation code on this chain (no transaction: no
 * nonce or block changes; immutables that depend on the chain, such as an EIP-712 domain, come out
 * right), and placed with `anvil_setCode`. Idempotent: a chain that already holds this code is
 * left alone; one saved with an older build, or before the contract existed, gets the current one.
 */
import { Interface, concat, toQuantity, type JsonRpcProvider } from 'ethers';
import type { Address } from '../../domain/events.js';
import type { Artifact } from './artifacts.js';
import { sendFromNode, type NodeTransaction } from './node-client.js';

export async function placeRuntimeCode(
  provider: JsonRpcProvider,
  artifact: Artifact,
  args: readonly unknown[],
  address: Address,
): Promise<void> {
  const initCode = concat([artifact.bytecode, new Interface(artifact.abi).encodeDeploy(args)]);
  const runtime: string = await provider.send('eth_call', [{ data: initCode }, 'latest']);
  if (runtime === '0x') throw new Error(`the creation code for ${address} left no code`);
  if ((await provider.getCode(address)).toLowerCase() !== runtime.toLowerCase())
    await provider.send('anvil_setCode', [address, runtime]);
}

/** Enough ether for any one transaction the devnet sends on an account's behalf. */
const GAS_MONEY = 10n ** 18n;

/**
 * Sends a transaction as `tx.from`, whose key nobody here holds (a contract, another network's
 * manager), through anvil's impersonation. Its ether balance is the same afterwards: a contract
 * that counts what it holds (an eth-flow contract refunds from it) sees nothing of the gas.
 */
export async function sendAs(provider: JsonRpcProvider, tx: NodeTransaction): Promise<void> {
  const balance = await provider.getBalance(tx.from);
  await provider.send('anvil_impersonateAccount', [tx.from]);
  try {
    await provider.send('anvil_setBalance', [tx.from, toQuantity(balance + GAS_MONEY)]);
    await sendFromNode(provider, tx);
  } finally {
    await provider.send('anvil_setBalance', [tx.from, toQuantity(balance)]);
    await provider.send('anvil_stopImpersonatingAccount', [tx.from]);
  }
}
