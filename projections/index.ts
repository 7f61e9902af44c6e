/** Every read model batchbook maintains: what the service runs and what `npm run replay` rebuilds. */
import { appDataProjector } from './app-data/projector.js';
import { auctionsProjector } from './auctions/projector.js';
import { noticesProjector } from './notices/projector.js';
import { ordersProjector } from './orders/projector.js';
import type { Projector } from './projector.js';
import { tradesProjector } from './trades/projector.js';

export function allProjectors(): Projector[] {
  return [
    ordersProjector(),
    appDataProjector(),
    tradesProjector(),
    auctionsProjector(),
    noticesProjector(),
  ];
}

export type { Projector } from './projector.js';
export { startProjections, type ProjectionEngine, type ProjectionOptions } from './runner.js';
