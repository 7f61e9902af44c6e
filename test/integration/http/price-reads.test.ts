/**
 * Price reads of tokens the chain knows nothing of (no contract, no pool) cost the operator's
 * RPC quota once per token and a while, not once per request: `native_price` and `usdPrice`
 * remember such a token for UNKNOWN_TOKEN_CACHE_SECONDS of the service's clock, whatever blocks
 * come meanwhile. The service's devnet RPC goes through a proxy that counts what it is asked.
 */
import { expect } from 'chai';
import type { Address } from '../../../src/domain/events.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { startRpcCounter, type RpcCounter } from '../../support/rpc-counter.js';
import {
  controlledClock,
  http,
  startTestService,
  type TestService,
} from '../../support/service.js';
import { newWallet } from '../../support/signing.js';

const REMEMBERED_SECONDS = 600;

describe('HTTP: price reads of unknown tokens', () => {
  const clock = controlledClock();
  let chain: TestChain;
  let rpc: RpcCounter;
  let service: TestService;
  before(async () => {
    chain = await sharedTestChain();
    rpc = await startRpcCounter(chain.rpcUrl);
    service = await startTestService({
      env: { DEVNET_RPC_URL: rpc.url, UNKNOWN_TOKEN_CACHE_SECONDS: String(REMEMBERED_SECONDS) },
      clock,
    });
  });
  after(async () => {
    await service?.stop();
    await rpc?.close();
  });

  /** The calls to the chain that name `token` (its decimals, its pools). */
  const askedAbout = (token: Address) =>
    rpc.calls.filter((call) => JSON.stringify(call.params).toLowerCase().includes(token.slice(2)))
      .length;

  const reads: [string, (token: Address) => string][] = [
    ['native_price', (token) => `${service.devnet}/api/v1/token/${token}/native_price`],
    ['usdPrice', (token) => `${service.url}/devnet/tokens/${token}/usdPrice`],
  ];

  for (const [name, path] of reads) {
    it(`asks the chain about an unknown token once per while for ${name}, however many blocks pass`, async () => {
      const token = newWallet().address.toLowerCase() as Address;
      const read = async () => {
        const response = await http('GET', path(token));
        expect(response.status, response.text).to.equal(404);
      };
      await read();
      const once = askedAbout(token);
      expect(once, 'the first read asks the chain').to.be.greaterThan(0);
      for (let i = 0; i < 5; i++) {
        // A new block: a cache of the block's chain state alone would ask again.
        await chain.mine(1);
        await read();
      }
      expect(askedAbout(token), 'asked again within the while').to.equal(once);

      clock.advance(REMEMBERED_SECONDS + 1);
      await read();
      expect(askedAbout(token), 'asked again after the while').to.equal(2 * once);
    });
  }
});
