/**
 * The ledger contract against EventStoreDB. No server runs on our machines: set EVENTSTORE_URL
 * (e.g. `esdb://localhost:2113?tls=false`) to run these; otherwise they are reported as skipped.
 */
import { createEventStoreLedger } from '../../../src/ledger/eventstoredb.js';
import { ledgerContract } from './contract.js';

const url = process.env.EVENTSTORE_URL;

describe('EventStoreDB', function () {
  before(function () {
    if (!url) {
      console.log('    EventStoreDB contract tests skipped: set EVENTSTORE_URL');
      this.skip();
    }
  });

  ledgerContract('EventStoreDB', async () => {
    const ledger = createEventStoreLedger({ connectionString: url! });
    return { ledger, close: () => ledger.close() };
  });
});
