/**
 * Reference §4.1 step 9: the EIP-1271 signature check and the sell-token transfer simulation,
 * run together; when both fail the signature is reported first. Pre-signed orders skip both
 * (their owner signs on chain, later, and funds the order by then); wrapped orders skip the
 * transfer simulation, as their wrapper contract provides the funds during the settlement.
 */
import { bytesToHex } from '../bytes/hex.js';
import type { Address, Hex, OrderData, SigningScheme } from '../domain/events.js';
import type { OrderChainChecks } from '../chain/order-checks.js';
import { ChainUnavailableError } from '../chain/rpc.js';
import { reject } from './rejection.js';

export interface ChainCheckInput {
  order: OrderData;
  owner: Address;
  scheme: SigningScheme;
  signature: Hex;
  digest: Uint8Array;
  fullBalanceCheck: boolean;
  /** The app data wraps the order (`wrappers`): the wrapper provides the funds, not the owner. */
  wrapped: boolean;
}

const TRANSFER_DESCRIPTIONS = {
  InsufficientBalance: 'order owner must have funds worth at least x in his account',
  InsufficientAllowance: 'order owner must give allowance to VaultRelayer',
} as const;

export async function checkOrderOnChain(
  checks: OrderChainChecks,
  input: ChainCheckInput,
): Promise<void> {
  if (input.scheme === 'presign') return;
  try {
    const [signatureValid, transfer] = await Promise.all([
      input.scheme === 'eip1271'
        ? checks.eip1271SignatureValid(input.owner, bytesToHex(input.digest), input.signature)
        : true,
      input.wrapped
        ? null
        : checks.transferProblem({
            owner: input.owner,
            token: input.order.sellToken,
            sellAmount: BigInt(input.order.sellAmount),
            fullBalanceCheck: input.fullBalanceCheck,
          }),
    ]);
    if (!signatureValid) {
      reject('InvalidEip1271Signature', 'signature for computed order hash is not valid');
    }
    if (transfer === null) return;
    if (transfer.errorType === 'TransferSimulationFailed') {
      const reverted = transfer.revertData ? `, token reverted with: ${transfer.revertData}` : '';
      reject(transfer.errorType, `sell token cannot be transferred${reverted}`);
    }
    reject(transfer.errorType, TRANSFER_DESCRIPTIONS[transfer.errorType]);
  } catch (error) {
    if (error instanceof ChainUnavailableError) {
      reject(
        'ChainUnavailable',
        `the chain could not be read to check the order: ${error.message}`,
      );
    }
    throw error;
  }
}
