/**
 * The official SDK (`@cowprotocol/cow-sdk`) against this origin's order book: quotes, app data,
 * orders and cancellations go through its `OrderBookApi`, and its `OrderSigningUtils` sign them
 * with the connected wallet through its viem adapter. Loaded only by the Trade page.
 */
import {
  OrderBookApi,
  OrderBookApiError,
  OrderSigningUtils,
  setGlobalAdapter,
  type ApiBaseUrls,
  type ProtocolOptions,
  type Signer,
  type SupportedChainId,
} from '@cowprotocol/cow-sdk';
import { ViemAdapter } from '@cowprotocol/sdk-viem-adapter';
import { ApiProblem, asApiProblem } from './api.js';
import { networkChoice } from './networks.js';
import type { ConnectedWallet } from './wallet.js';

/** The devnet is no chain the SDK knows: its settlement contract sits at the canonical address. */
const CANONICAL_SETTLEMENT = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';

export interface Cow {
  api: OrderBookApi;
  chainId: SupportedChainId;
  signer: Signer;
  options: ProtocolOptions;
}

export function cowFor(network: string, wallet: ConnectedWallet): Cow {
  const chainId = (networkChoice(network)?.chainId ?? 0) as SupportedChainId;
  const adapter = new ViemAdapter(
    wallet.privateKey
      ? { provider: wallet.publicClient, signer: wallet.privateKey }
      : { provider: wallet.publicClient, walletClient: wallet.walletClient },
  );
  setGlobalAdapter(adapter);
  return {
    api: new OrderBookApi({
      chainId,
      env: 'prod',
      baseUrls: { [chainId]: `${location.origin}/${network}` } as ApiBaseUrls,
      backoffOpts: { numOfAttempts: 1 },
    }),
    chainId,
    signer: adapter.signer as unknown as Signer,
    options:
      network === 'devnet'
        ? { settlementContractOverride: { [chainId]: CANONICAL_SETTLEMENT } }
        : {},
  };
}

/** The SDK's refusals as the app shows every problem. */
export function asProblem(error: unknown): ApiProblem {
  if (error instanceof OrderBookApiError) {
    const body = error.body as { errorType?: string; description?: string } | undefined;
    return new ApiProblem(
      error.response.status,
      body?.errorType ?? `HTTP ${error.response.status}`,
      body?.description ?? error.message,
    );
  }
  return asApiProblem(error);
}

export { OrderSigningUtils };
