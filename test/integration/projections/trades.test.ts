/**
 * The trades read model: a row per Trade log and per Settlement log on the canonical chain,
 * taken back by a reorg's ChainFactReverted of that very log (block hash and log index), and
 * the queries behind GET /trades and GET /transactions/{txHash}/orders. Replay equals live.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { allProjectors } from '../../../projections/index.js';
import { replayInto } from '../../../projections/replay.js';
import type { ChainFact, Hex, SettlementObservedV1 } from '../../../src/domain/events.js';
import { createOrderQueries } from '../../../src/queries/orders.js';
import { createTradeQueries } from '../../../src/queries/trades.js';
import { address, chain, orderPlaced, tableContents, tradeSettled } from './fixtures.js';
import { suiteProjectedDatabase } from './projected-database.js';

const NOW = 1_800_000_000;

function settlementObserved(block: number, logIndex: number, txHash?: Hex): SettlementObservedV1 {
  const at = chain(block, logIndex);
  return {
    network: 'mainnet',
    solver: address(50),
    settledAt: '2025-01-01T01:00:00.000Z',
    chain: { ...at, txHash: txHash ?? at.txHash },
  };
}

const reverted = (fact: ChainFact) => ({
  network: fact.data.network,
  revertedEventId: randomUUID(),
  reverted: fact,
  reason: 'reorg' as const,
});

describe('trades read model', () => {
  const {
    project,
    queries: trades,
    database,
    engine,
  } = suiteProjectedDatabase(['trades', 'orders'], (db) =>
    createTradeQueries(db, createOrderQueries(db)),
  );

  const settlementRows = async () =>
    (
      await database().db.raw<{
        rows: { tx_hash: string; block_number: string; log_index: number; solver: string }[];
      }>('SELECT tx_hash, block_number, log_index, solver FROM read.settlements ORDER BY 2, 3')
    ).rows;

  it('serves a trade in the API shape, by owner and by order', async () => {
    const placed = orderPlaced(1, { owner: address(11) });
    const trade = tradeSettled(placed, { sell: 1000n, buy: 20n, fee: 7n }, 100, 3);
    await project('TradeSettled', trade);
    const expected = {
      blockNumber: 100,
      logIndex: 3,
      orderUid: placed.uid,
      owner: address(11),
      sellToken: placed.order.sellToken,
      buyToken: placed.order.buyToken,
      sellAmount: '1000',
      sellAmountBeforeFees: '993',
      buyAmount: '20',
      txHash: trade.chain.txHash,
      executedProtocolFees: [],
    };
    expect(await trades().trades('mainnet', { owner: address(11) }, 0, 10)).to.deep.equal([
      expected,
    ]);
    expect(await trades().trades('mainnet', { orderUid: placed.uid }, 0, null)).to.deep.equal([
      expected,
    ]);
    expect(await trades().trades('gnosis', { owner: address(11) }, 0, 10)).to.deep.equal([]);
  });

  it('lists newest first (block, then log index) and pages with offset and limit', async () => {
    const placed = orderPlaced(2, { owner: address(12) });
    for (const [block, logIndex] of [
      [110, 5],
      [120, 1],
      [110, 9],
    ] as const) {
      await project('TradeSettled', tradeSettled(placed, { sell: 1n, buy: 1n }, block, logIndex));
    }
    const at = async (offset: number, limit: number | null) =>
      (await trades().trades('mainnet', { owner: address(12) }, offset, limit)).map(
        (tr) => `${tr.blockNumber}/${tr.logIndex}`,
      );
    expect(await at(0, null)).to.deep.equal(['120/1', '110/9', '110/5']);
    expect(await at(1, 1)).to.deep.equal(['110/9']);
    expect(await at(2, 10)).to.deep.equal(['110/5']);
    expect(await at(3, 10)).to.deep.equal([]);
  });

  it('takes back exactly the reverted log, and shows it again when the chain restores it', async () => {
    const placed = orderPlaced(3, { owner: address(13) });
    const kept = tradeSettled(placed, { sell: 1n, buy: 1n }, 130, 0);
    // The same log index in another block is another log.
    const gone: ChainFact = {
      type: 'TradeSettled',
      data: { ...kept, chain: { ...kept.chain, blockHash: `0x${'ab'.repeat(32)}` } },
    };
    await project('TradeSettled', kept);
    await project('TradeSettled', gone.data);
    expect(await trades().trades('mainnet', { orderUid: placed.uid }, 0, 10)).to.have.length(2);

    await project('ChainFactReverted', reverted(gone));
    const left = await trades().trades('mainnet', { orderUid: placed.uid }, 0, 10);
    expect(left.map((tr) => tr.txHash)).to.deep.equal([kept.chain.txHash]);

    await project('TradeSettled', gone.data);
    expect(await trades().trades('mainnet', { orderUid: placed.uid }, 0, 10)).to.have.length(2);
  });

  it('records settlements and takes a reverted one back', async () => {
    const first = settlementObserved(140, 2);
    const second = settlementObserved(141, 4);
    await project('SettlementObserved', first);
    await project('SettlementObserved', second);
    await project('ChainFactReverted', reverted({ type: 'SettlementObserved', data: second }));
    expect(await settlementRows()).to.deep.equal([
      { tx_hash: first.chain.txHash, block_number: '140', log_index: 2, solver: address(50) },
    ]);
  });

  it('lists the orders traded in a transaction, in trade order, without their quote', async () => {
    const tx: Hex = `0x${'7'.repeat(64)}`;
    const quote = {
      id: 1,
      gasAmount: '1',
      gasPrice: '1',
      sellTokenPrice: '1',
      sellAmount: '1',
      buyAmount: '1',
      feeAmount: '0',
      solver: address(9),
      verified: false,
      metadata: {},
    };
    const a = orderPlaced(4, { quoteId: 1, quote });
    const b = orderPlaced(5);
    // Traded on chain, never placed through the API: no order to show.
    const unknown = orderPlaced(6);
    await project('OrderPlaced', a);
    await project('OrderPlaced', b);
    const inTx = (placed: typeof a, logIndex: number) => {
      const trade = tradeSettled(placed, { sell: 1n, buy: 1n }, 150, logIndex);
      return { ...trade, chain: { ...trade.chain, txHash: tx } };
    };
    await project('TradeSettled', inTx(b, 0));
    await project('TradeSettled', inTx(unknown, 1));
    await project('TradeSettled', inTx(a, 2));
    await project('SettlementObserved', settlementObserved(150, 3, tx));

    const orders = await trades().ordersInTransaction('mainnet', tx, NOW);
    expect(orders.map((o) => o.uid)).to.deep.equal([b.uid, a.uid]);
    expect(orders[1]).to.not.have.property('quote');
    expect(orders[1]!.executedSellAmount).to.equal('1');
    expect(await trades().ordersInTransaction('gnosis', tx, NOW)).to.deep.equal([]);
    expect(await trades().ordersInTransaction('mainnet', `0x${'8'.repeat(64)}`, NOW)).to.deep.equal(
      [],
    );
  });

  it('replays into the same tables as live projection built', async () => {
    const { position } = await replayInto({
      ledger: database().ledger,
      db: database().db,
      projectors: allProjectors(),
      schema: 'replay',
      // Live projection applied the events one by one; the replay takes them in one batch, so a
      // log recorded, reverted and recorded again meets its last word inside a single batch.
      batchSize: 10_000,
    });
    expect(await engine().waitFor('trades', position!, 5000)).to.equal(true);
    for (const table of ['trades', 'settlements']) {
      const live = await tableContents(database().db, 'read', table);
      expect(live, table).to.not.deep.equal([]);
      expect(await tableContents(database().db, 'replay', table), table).to.deep.equal(live);
    }
  });
});
