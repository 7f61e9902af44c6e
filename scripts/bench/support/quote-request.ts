/** The quote requests the HTTP benches send to the service's devnet: priced from its pools. */
import type { DevnetDeployment } from '../../../src/chain/devnet/deploy.js';
import type { LoadRequest } from './load.js';

/** Plain addresses (a worker thread can receive them): two sell tokens, the buy token, a trader. */
export interface QuoteParties {
  weth: string;
  ddai: string;
  dusd: string;
  from: string;
}

export function quoteParties(deployment: DevnetDeployment): QuoteParties {
  const [dusd, , ddai] = deployment.tokens;
  return {
    weth: deployment.weth.address,
    ddai: ddai!.address,
    dusd: dusd!.address,
    from: deployment.accounts[0]!.address,
  };
}

/** Quote `i`: alternately a direct pair and one routed through WETH, sells and buys. */
export function quoteRequest(parties: QuoteParties, i: number): LoadRequest {
  return {
    method: 'POST',
    path: '/devnet/api/v1/quote',
    body: Buffer.from(
      JSON.stringify({
        sellToken: i % 2 ? parties.weth : parties.ddai,
        buyToken: parties.dusd,
        from: parties.from,
        kind: i % 4 < 2 ? 'sell' : 'buy',
        ...(i % 4 < 2
          ? { sellAmountBeforeFee: String(10n ** 18n + BigInt(i)) }
          : { buyAmountAfterFee: String(10n ** 20n + BigInt(i)) }),
      }),
    ),
  };
}
