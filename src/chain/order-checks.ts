/**
 * The chain reads behind order submission (reference §4.1 step 9): can the vault relayer pull
 * the sell token from the owner, and does an EIP-1271 owner contract accept its signature.
 */
import { isError } from 'ethers';
import type { Address, Hex } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import {
  ABI_FUNCTIONS,
  decodeBool,
  decodeBytes4,
  decodeUint256,
  encodeAllowance,
  encodeBalanceOf,
  encodeIsValidSignature,
  encodeTransferFrom,
  isAbiWord,
} from './abi-words.js';
import type { ChainRpc } from './rpc.js';

/** What a contract answers for a valid signature: by EIP-1271, the function's own selector. */
const EIP1271_MAGIC_VALUE = ABI_FUNCTIONS.isValidSignature.selector;

export type TransferProblem =
  | { errorType: 'InsufficientBalance' | 'InsufficientAllowance' }
  | { errorType: 'TransferSimulationFailed'; revertData: Hex | null };

export interface TransferCheck {
  owner: Address;
  token: Address;
  sellAmount: bigint;
  /** Check the full sell amount rather than whether the token moves at all. */
  fullBalanceCheck: boolean;
}

export interface OrderChainChecks {
  /** Null when the relayer can pull the amount the check asks for. */
  transferProblem(check: TransferCheck): Promise<TransferProblem | null>;
  eip1271SignatureValid(owner: Address, digest: Hex, signature: Hex): Promise<boolean>;
  /** The owner's balance of a token (the autopilot's balance filter). */
  balanceOf(owner: Address, token: Address): Promise<bigint>;
  /** What the owner lets the vault relayer pull of a token (the autopilot's balance filter). */
  allowance(owner: Address, token: Address): Promise<bigint>;
}

/** Amounts the small-amount mode tries in turn: some tokens refuse dust transfers. */
const PROBE_AMOUNTS = [1n, 10n, 100n];

function revertData(error: unknown): Hex | null {
  if (isError(error, 'CALL_EXCEPTION')) return (error.data as Hex | null) ?? null;
  throw error;
}

export function createOrderChainChecks(
  rpc: ChainRpc,
  contracts: Pick<Network, 'settlementContract' | 'vaultRelayer'>,
): OrderChainChecks {
  // A plain eth_call: ethers' `call()` first formats and resolves the transaction, which cost
  // more CPU than the rest of the submission check. Batched: the checks of concurrent
  // submissions share one HTTP round trip to the node (src/chain/rpc.ts).
  const call = (what: string, to: Address, data: string, from?: Address): Promise<string> =>
    rpc.request(
      what,
      (node) => node.send('eth_call', [{ to, data, ...(from ? { from } : {}) }, 'latest']),
      { batched: true },
    );
  // The calldata and results straight as ABI words (./abi-words.ts): ethers' `Interface`
  // checksummed every address and hashed the selector anew on each call. A malformed result
  // throws as ethers' decoding did, '0x' included (BAD_DATA with value '0x').
  const read = async (token: Address, fn: 'balanceOf' | 'allowance', data: Hex) =>
    decodeUint256(await call(`${fn} of ${token}`, token, data), fn);
  const balanceOf = async (owner: Address, token: Address) =>
    read(token, 'balanceOf', encodeBalanceOf(owner));
  const allowance = async (owner: Address, token: Address) =>
    read(token, 'allowance', encodeAllowance(owner, contracts.vaultRelayer));

  const hasCode = async (address: Address) =>
    (await rpc.request(`code of ${address}`, (node) => node.getCode(address), {
      batched: true,
    })) !== '0x';

  /** What the settlement does: the relayer calls transferFrom(owner → settlement). */
  const simulate = async (check: TransferCheck, amount: bigint): Promise<Hex | null | 'ok'> => {
    const { owner, token } = check;
    const data = encodeTransferFrom(owner, contracts.settlementContract, amount);
    try {
      const result = await call('transfer simulation', token, data, contracts.vaultRelayer);
      // Tokens that return nothing pass, as the contract's SafeERC20 lets them, if they exist.
      if (result === '0x') return (await hasCode(token)) ? 'ok' : null;
      return decodeBool(result, 'transferFrom') ? 'ok' : null;
    } catch (error) {
      return revertData(error);
    }
  };

  /** Why the token did not move, or null when the reference would let the order pass anyway. */
  const explain = async (check: TransferCheck, revert: Hex | null) => {
    const { owner, token, sellAmount, fullBalanceCheck } = check;
    let allowed: bigint, balance: bigint;
    try {
      [allowed, balance] = await Promise.all([allowance(owner, token), balanceOf(owner, token)]);
    } catch (error) {
      // An empty answer is no ERC-20 at all (e.g. no code at the address): nothing to pull.
      const noToken = isError(error, 'BAD_DATA') && error.value === '0x';
      return {
        errorType: 'TransferSimulationFailed',
        revertData: noToken ? revert : (revertData(error) ?? revert),
      } as const;
    }
    const needed = fullBalanceCheck ? sellAmount : 1n;
    if (allowed < needed) return { errorType: 'InsufficientAllowance' } as const;
    if (balance < needed) {
      // Without the full check a missing balance is forgiven when the allowance covers the
      // order: the owner may fund it before it settles (as the reference does).
      return !fullBalanceCheck && allowed >= sellAmount
        ? null
        : ({ errorType: 'InsufficientBalance' } as const);
    }
    return { errorType: 'TransferSimulationFailed', revertData: revert } as const;
  };

  return {
    async transferProblem(check) {
      const amounts = check.fullBalanceCheck ? [check.sellAmount] : PROBE_AMOUNTS;
      let revert: Hex | null = null;
      for (const amount of amounts) {
        const outcome = await simulate(check, amount);
        if (outcome === 'ok') return null;
        revert = outcome;
      }
      return explain(check, revert);
    },
    balanceOf,
    allowance,
    async eip1271SignatureValid(owner, digest, signature) {
      const data = encodeIsValidSignature(digest, signature);
      try {
        const result = await call('isValidSignature', owner, data);
        // Exactly one word holding the magic value: a longer answer or one that is not hex is
        // no valid signature.
        return (
          isAbiWord(result) && decodeBytes4(result, 'isValidSignature') === EIP1271_MAGIC_VALUE
        );
      } catch (error) {
        revertData(error);
        return false;
      }
    },
  };
}
