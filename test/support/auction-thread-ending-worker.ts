/**
 * The module of an auction thread that ends unasked (the service's `auctionThreadUrl`): the real
 * one (src/auction-thread/worker.ts) that exits, while an ending is armed (./thread-endings.ts),
 * as it tells the service of its first cut holding orders: mid-auction, after the cut, before
 * its record, as a thread that hits a bug would end.
 */
import { parentPort } from 'node:worker_threads';
import type { FromAuctionThread } from '../../src/auction-thread/messages.js';
import type { FromSupervisedThread } from '../../src/threads/supervision-messages.js';
import { claimEnding, ENDED_ON_PURPOSE } from './thread-endings.js';

const port = parentPort!;
const post = port.postMessage.bind(port);
port.postMessage = (message: FromAuctionThread | FromSupervisedThread) => {
  post(message);
  const { call } = message.type === 'observed' ? message : { call: null };
  if (call?.method === 'cut' && Number(call.args[1]) > 0 && claimEnding()) {
    process.exit(ENDED_ON_PURPOSE);
  }
};

await import('../../src/auction-thread/worker.js');
