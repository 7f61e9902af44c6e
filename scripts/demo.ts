/**
 * `npm run demo`: one complete trade on the devnet of a running `npm start`, step by step (see
 * scripts/demo/trade.ts). Exits non-zero when a step fails.
 *
 *   BATCHBOOK_URL   the service (default http://127.0.0.1:8080)
 *   DEVNET_RPC_URL  the devnet's JSON-RPC (default http://127.0.0.1:8545)
 */
import { devnetDemoAccounts } from '../src/chain/devnet/accounts.js';
import { runDemoTrade } from './demo/trade.js';

const baseUrl = (process.env.BATCHBOOK_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const rpcUrl = process.env.DEVNET_RPC_URL ?? 'http://127.0.0.1:8545';
const [first, second] = devnetDemoAccounts();

try {
  await runDemoTrade({
    serviceUrl: baseUrl,
    rpcUrl,
    traders: [first!, second!],
    timeoutMs: 120_000,
    report: (line) => console.log(line),
  });
  console.log('done: the trade is settled on chain and visible through the API.');
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error(`Is the service running (npm start) and serving ${baseUrl}/devnet?`);
  process.exitCode = 1;
}
