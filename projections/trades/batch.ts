/**
 * Reduces a batch of chain facts to the rows to insert and the logs to delete. A log is present
 * or absent as its last event in the batch says (a fact records it, a `ChainFactReverted` of it
 * takes it back, and the indexer may record it again after a reorg that restored its block), so
 * the reduced batch has the effect of its events applied one by one, at any batch boundary.
 *
 * Hex values are stored as the events carry them: lowercase, by the events' contract.
 */
import type {
  ChainCoordinates,
  SettlementObservedV1,
  TradeSettledV1,
} from '../../src/domain/events.js';
import type { EventOf } from '../events.js';

export type TradeEvent = EventOf<'TradeSettled' | 'SettlementObserved' | 'ChainFactReverted'>;

export const TRADE_EVENT_TYPES: ReadonlySet<TradeEvent['type']> = new Set([
  'TradeSettled',
  'SettlementObserved',
  'ChainFactReverted',
]);

/** What identifies a log on one network. */
export interface LogKey {
  network: string;
  block_hash: string;
  log_index: number;
}

export interface TradeRow extends LogKey {
  block_number: number;
  tx_hash: string;
  order_uid: string;
  owner: string;
  sell_token: string;
  buy_token: string;
  sell_amount: string;
  buy_amount: string;
  fee_amount: string;
}

export interface SettlementRow extends LogKey {
  tx_hash: string;
  block_number: number;
  solver: string;
}

export interface TradesBatch {
  trades: TradeRow[];
  revertedTrades: LogKey[];
  settlements: SettlementRow[];
  revertedSettlements: LogKey[];
}

const logOf = (network: string, chain: ChainCoordinates) => ({
  network,
  block_hash: chain.blockHash,
  log_index: chain.logIndex,
  block_number: chain.blockNumber,
  tx_hash: chain.txHash,
});

const tradeRow = (d: TradeSettledV1): TradeRow => ({
  ...logOf(d.network, d.chain),
  order_uid: d.uid,
  owner: d.owner,
  sell_token: d.sellToken,
  buy_token: d.buyToken,
  sell_amount: d.sellAmount,
  buy_amount: d.buyAmount,
  fee_amount: d.feeAmount,
});

const settlementRow = (d: SettlementObservedV1): SettlementRow => ({
  ...logOf(d.network, d.chain),
  solver: d.solver,
});

/** The batch's last word on each log of one table. */
class LastWord<Row extends LogKey> {
  private readonly logs = new Map<string, { row: Row; present: boolean }>();

  set(row: Row, present: boolean): void {
    this.logs.set(`${row.network}/${row.block_hash}/${row.log_index}`, { row, present });
  }

  rows(present: boolean): Row[] {
    return [...this.logs.values()].filter((l) => l.present === present).map((l) => l.row);
  }
}

export function reduceTradeEvents(events: readonly TradeEvent[]): TradesBatch {
  const trades = new LastWord<TradeRow>();
  const settlements = new LastWord<SettlementRow>();
  for (const e of events) {
    switch (e.type) {
      case 'TradeSettled':
        trades.set(tradeRow(e.data), true);
        break;
      case 'SettlementObserved':
        settlements.set(settlementRow(e.data), true);
        break;
      case 'ChainFactReverted': {
        const fact = e.data.reverted;
        if (fact.type === 'TradeSettled') trades.set(tradeRow(fact.data), false);
        else if (fact.type === 'SettlementObserved')
          settlements.set(settlementRow(fact.data), false);
        break;
      }
    }
  }
  return {
    trades: trades.rows(true),
    revertedTrades: trades.rows(false),
    settlements: settlements.rows(true),
    revertedSettlements: settlements.rows(false),
  };
}
