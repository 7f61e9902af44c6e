/**
 * Indexer catch-up benchmark: a devnet history with N trades (default 10,000: coincidences of
 * wants between two demo accounts, 100 trades per settlement), then a fresh ledger whose chain
 * indexer starts at block 0 and catches up to the head. Prints blocks/s, logs/s and events/s.
 *
 *   node --import tsx scripts/bench/indexer.ts [trades, default 10000]
 *
 * Runs against a throw-away anvil and embedded PostgreSQL.
 */
import { performance } from 'node:perf_hooks';
import { SigningKey } from 'ethers';
import pg from 'pg';
import { startAnvil } from '../../src/chain/devnet/anvil.js';
import { deployDevnet } from '../../src/chain/devnet/deploy.js';
import { devnetProvider, sendFromNode } from '../../src/chain/devnet/node-client.js';
import { startChainIndexer } from '../../src/chain/indexer.js';
import { createChainRpc } from '../../src/chain/rpc.js';
import { encodeSettle, type SettlementTrade } from '../../src/chain/settlement-call.js';
import type { Address, OrderData } from '../../src/domain/events.js';
import { networkByName } from '../../src/domain/networks.js';
import { createLogger } from '../../src/logger.js';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import { leadershipOn } from '../../src/postgres/leadership.js';
import { inTransaction } from '../../src/postgres/transaction.js';
import { createFastOrderSigner, type SignedOrder } from '../../test/support/signing.js';
import { startScratchPostgres } from './support/harness.js';

const trades = Number(process.argv[2] ?? 10_000);
const TRADES_PER_SETTLEMENT = 100;
const devnet = networkByName('devnet')!;

function settlementTrade(signed: SignedOrder): SettlementTrade {
  const { order } = signed;
  const data: OrderData = {
    sellToken: order.sellToken as Address,
    buyToken: order.buyToken as Address,
    receiver: null,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    validTo: order.validTo,
    appData: signed.appDataHash,
    feeAmount: order.feeAmount,
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
  };
  const signature = signed.body.signature as `0x${string}`;
  return {
    order: data,
    owner: signed.owner,
    signingScheme: 'eip712',
    signature,
    executedAmount: 0n,
    // Every trade of the bench sells the settlement's first token for its second.
    sellTokenIndex: 0,
    buyTokenIndex: 1,
  };
}

/** Settles `trades` trades in blocks of TRADES_PER_SETTLEMENT; returns the head block. */
async function buildHistory(rpcUrl: string): Promise<number> {
  const deployment = await deployDevnet(rpcUrl);
  const provider = devnetProvider(rpcUrl);
  const [alice, bob] = deployment.accounts.map((a) => new SigningKey(a.privateKey));
  const [x, y] = deployment.tokens.map((t) => t.address);
  const signer = createFastOrderSigner(deployment.chainId, deployment.settlement);
  const validTo = Math.floor(Date.now() / 1000) + 86_400;
  // Equal amounts on both sides: one pair of clearing prices fits every pair of orders.
  const order = (sellToken: string, buyToken: string, i: number) => ({
    sellToken,
    buyToken,
    sellAmount: '1000',
    buyAmount: '1000',
    validTo: validTo + i,
  });
  const started = performance.now();
  for (let first = 0; first < trades; first += TRADES_PER_SETTLEMENT) {
    const batch: SettlementTrade[] = [];
    for (let i = first; i < Math.min(first + TRADES_PER_SETTLEMENT, trades); i += 2) {
      batch.push(settlementTrade(signer.sign(alice!, order(x!, y!, i))));
      batch.push(settlementTrade(signer.sign(bob!, order(y!, x!, i))));
    }
    const data = encodeSettle({ tokens: [x!, y!], clearingPrices: [1n, 1n], trades: batch });
    await sendFromNode(provider, {
      from: deployment.solver.address,
      to: deployment.settlement,
      data,
    });
  }
  const head = await provider.getBlockNumber();
  console.log(
    `history: ${trades} trades in ${Math.ceil(trades / TRADES_PER_SETTLEMENT)} settlements, ` +
      `head block ${head} (built in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  provider.destroy();
  return head;
}

async function main(): Promise<void> {
  const scratch = await startScratchPostgres('batchbook-bench-indexer-');
  try {
    const anvil = await startAnvil({ port: 0, stateFile: null });
    scratch.onStop(() => anvil.stop());
    const pool = new pg.Pool({ connectionString: scratch.url('postgres'), max: 16 });
    scratch.onStop(() => pool.end());
    const head = await buildHistory(anvil.rpcUrl);
    await migrateStores(pool);
    const ledger = createPostgresLedger({ pool });
    const rpc = createChainRpc(devnet, anvil.rpcUrl);
    const started = performance.now();
    const indexer = await startChainIndexer(
      {
        rpc,
        ledger,
        pool,
        inTransaction,
        requestLeadership: leadershipOn({ connectionString: scratch.url('postgres') }),
        logger: createLogger('warn'),
      },
      { confirmations: 0, pollIntervalMs: 10, maxBlockRange: 1000, startBlock: 0 },
    );
    const cursor = async () =>
      Number(
        (
          await pool.query<{ n: string }>(
            "SELECT block_number AS n FROM chain.indexer_cursors WHERE network = 'devnet'",
          )
        ).rows[0]?.n ?? -1,
      );
    while ((await cursor()) < head) await new Promise((r) => setTimeout(r, 5));
    const seconds = (performance.now() - started) / 1000;
    await indexer.stop();
    rpc.close();
    const { rows } = await pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM chain.indexer_facts',
    );
    const logs = Number(rows[0]!.n);
    console.log(
      `catch-up: ${head + 1} blocks, ${logs} logs in ${seconds.toFixed(2)} s = ` +
        `${Math.round((head + 1) / seconds)} blocks/s, ${Math.round(logs / seconds)} logs/s`,
    );
    await ledger.close();
  } finally {
    await scratch.stop();
  }
}

await main();
