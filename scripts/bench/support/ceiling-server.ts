/**
 * The server of `bench:ceiling` (ceiling-run.ts starts it as a child process): a bare
 * `node:http` server that parses an order, hashes and recovers it with the service's own fast
 * path (`src/domain`), appends `OrderPlaced` through the PostgreSQL ledger's group commit (stages
 * `signature`: not) and answers `201` with the UID. It tells its parent its port.
 *
 *   node --import tsx scripts/bench/support/ceiling-server.ts signature|ledger DATABASE_URL
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { computeOrderUid, domainSeparator, orderDigest } from '../../../src/domain/eip712.js';
import type { Address, Hex, OrderData } from '../../../src/domain/events.js';
import { recoverOrderSigner } from '../../../src/domain/signatures.js';
import { createPostgresLedger } from '../../../src/ledger/postgres.js';
import type { Ledger } from '../../../src/ledger/port.js';
import { migrateStores } from '../../../src/postgres/migrations/apply.js';
import { CHAIN_ID, SETTLEMENT_CONTRACT } from '../../../test/support/signing.js';

export type CeilingStages = 'signature' | 'ledger';

async function serve(stages: CeilingStages, databaseUrl: string): Promise<void> {
  const separator = domainSeparator(CHAIN_ID.devnet, SETTLEMENT_CONTRACT);
  let ledger: Ledger | null = null;
  if (stages === 'ledger') {
    // The service's ledger pool size (src/startup/infrastructure.ts).
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
    pool.on('error', () => undefined); // the cluster stops with the bench
    await migrateStores(pool);
    ledger = createPostgresLedger({ pool });
  }

  /** What the bench's orders carry: the SDK's shape, app data as document and hash. */
  type Submitted = Omit<OrderData, 'appData'> & { appDataHash: Hex; from: Address; signature: Hex };

  const accept = async (text: string): Promise<[number, string]> => {
    const body = JSON.parse(text) as Submitted;
    const digest = orderDigest({ ...body, appData: body.appDataHash }, separator);
    const signer = recoverOrderSigner('eip712', digest, body.signature);
    if (signer === null || signer !== body.from.toLowerCase()) {
      return [400, '{"errorType":"InvalidSignature","description":"signer differs from from"}'];
    }
    const uid = computeOrderUid(digest, signer, body.validTo);
    const event = { id: randomUUID(), type: 'OrderPlaced', version: 1, data: { uid, body } };
    await ledger?.append(`order-${uid}`, [{ ...event, metadata: {} }], 'noStream');
    return [201, JSON.stringify(uid)];
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      accept(Buffer.concat(chunks).toString()).then(
        ([status, json]) => {
          res.writeHead(status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(json),
          });
          res.end(json);
        },
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
}

void serve(process.argv[2] as CeilingStages, process.argv[3]!);
