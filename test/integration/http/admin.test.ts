/**
 * Administrative endpoints need the admin API key: `GET /metrics` (Prometheus text) answers
 * 401 without it or with a wrong one, 503 on a server that has none, and serves the process,
 * HTTP, read-your-writes and storage metrics to its holder.
 */
import { expect } from 'chai';
import { sharedTestChain } from '../../support/chain.js';
import { fundedWallet } from '../../support/owners.js';
import { documentedHttp } from '../../support/openapi.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { CHAIN_ID, signOrder } from '../../support/signing.js';

const KEY = 'operators-only';

/** The value of one sample line, e.g. `name{label="x"} 3`; undefined when absent. */
function sample(exposition: string, line: RegExp): number | undefined {
  const match = exposition.split('\n').find((l) => line.test(l));
  return match === undefined ? undefined : Number(match.slice(match.lastIndexOf(' ') + 1));
}

describe('HTTP: administrative endpoints', () => {
  describe('with an admin API key', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ env: { ADMIN_API_KEY: KEY } });
    });
    after(() => service.stop());

    it('refuses /metrics without the key or with a wrong one (401 Unauthorized)', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { 'x-api-key': 'guess' },
        { authorization: 'Bearer guess' },
        { authorization: KEY },
      ];
      for (const headers of attempts) {
        const res = await documentedHttp<{ errorType: string }>(
          'GET',
          `${service.url}/metrics`,
          undefined,
          headers,
        );
        expect(res.status, JSON.stringify(headers)).to.equal(401);
        expect(res.body.errorType).to.equal('Unauthorized');
        expect(res.text).not.to.include('batchbook_');
      }
    });

    it('serves Prometheus text to the key in X-API-Key or as a bearer token', async () => {
      const holders: Record<string, string>[] = [
        { 'x-api-key': KEY },
        { authorization: `Bearer ${KEY}` },
      ];
      for (const headers of holders) {
        const res = await documentedHttp('GET', `${service.url}/metrics`, undefined, headers);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
        expect(res.headers.get('cache-control')).to.equal('no-store');
        for (const name of [
          'batchbook_process_resident_memory_bytes',
          'batchbook_nodejs_heap_size_used_bytes',
          'batchbook_nodejs_eventloop_lag_p99_seconds',
          'batchbook_delivery_outbox_pending',
          'batchbook_projection_thread_heap_used_bytes',
          'batchbook_auction_thread_heap_used_bytes',
        ]) {
          expect(res.text).to.match(new RegExp(`^${name}(\\{[^}]*\\})? `, 'm'));
        }
        // Read from each thread itself: an unanswered gauge would read 0.
        expect(sample(res.text, /^batchbook_projection_thread_heap_used_bytes /)).to.be.above(1e6);
        expect(sample(res.text, /^batchbook_auction_thread_heap_used_bytes /)).to.be.above(1e6);
      }
    });

    it('counts requests by route pattern and status, not by concrete path', async () => {
      const metrics = async () =>
        (await documentedHttp('GET', `${service.url}/metrics`, undefined, { 'x-api-key': KEY }))
          .text;
      const line =
        /^batchbook_http_requests_total\{method="GET",route="\/:network\/api\/v1\/orders\/:uid",status="400"\} /;
      const before = sample(await metrics(), line) ?? 0;
      for (const uid of ['0x01', '0x02', 'nonsense']) {
        expect(
          (await documentedHttp('GET', `${service.devnet}/api/v1/orders/${uid}`)).status,
        ).to.equal(400);
      }
      const text = await metrics();
      expect(sample(text, line)).to.equal(before + 3);
      expect(text).not.to.include('nonsense');
    });

    it('observes the read-your-writes wait of an accepted order', async () => {
      const metrics = async () =>
        (await documentedHttp('GET', `${service.url}/metrics`, undefined, { 'x-api-key': KEY }))
          .text;
      const count = /^batchbook_read_your_writes_wait_seconds_count\{projector="orders"\} /;
      const before = sample(await metrics(), count) ?? 0;
      const signed = await signOrder(await fundedWallet(), CHAIN_ID.devnet);
      expect(
        (await documentedHttp('POST', `${service.devnet}/api/v1/orders`, signed.body)).status,
      ).to.equal(201);
      expect(sample(await metrics(), count)).to.equal(before + 1);
    });

    it('shows the storage each kind takes: ledger events by type, tables, the quote store', async () => {
      const wallet = await fundedWallet();
      const signed = await signOrder(wallet, CHAIN_ID.devnet);
      expect((await http('POST', `${service.devnet}/api/v1/orders`, signed.body)).status).to.equal(
        201,
      );
      const { deployment } = await sharedTestChain();
      const quoted = await http('POST', `${service.devnet}/api/v1/quote`, {
        sellToken: deployment.weth.address,
        buyToken: deployment.tokens.find((t) => t.symbol === 'DUSD')!.address,
        from: wallet.address,
        kind: 'sell',
        sellAmountBeforeFee: String(10n ** 18n),
      });
      expect(quoted.status, quoted.text).to.equal(200);

      const { text } = await http('GET', `${service.url}/metrics`, undefined, { 'x-api-key': KEY });
      expect(sample(text, /^batchbook_ledger_events\{type="OrderPlaced"\} /)).to.be.at.least(1);
      expect(
        sample(text, /^batchbook_ledger_event_payload_bytes\{type="OrderPlaced"\} /),
      ).to.be.above(500);
      for (const [schema, table] of [
        ['public', 'ledger_events'],
        ['read', 'orders'],
        ['quote_store', 'quotes'],
      ]) {
        const size = new RegExp(
          `^batchbook_table_size_bytes\\{schema="${schema}",table="${table}"\\} `,
        );
        expect(sample(text, size), `${schema}.${table}`).to.be.above(0);
        expect(text).to.match(
          new RegExp(`^batchbook_table_live_rows\\{schema="${schema}",table="${table}"\\} `, 'm'),
        );
      }
      expect(sample(text, /^batchbook_quote_store_quotes\{network="devnet"\} /)).to.be.at.least(1);
    });
  });

  describe('without an admin API key', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(() => service.stop());

    it('answers 503 AdminApiDisabled, naming the variable, whatever key is sent', async () => {
      const attempts: Record<string, string>[] = [{}, { 'x-api-key': 'devnet' }];
      for (const headers of attempts) {
        const res = await documentedHttp<{ errorType: string; description: string }>(
          'GET',
          `${service.url}/metrics`,
          undefined,
          headers,
        );
        expect(res.status).to.equal(503);
        expect(res.body.errorType).to.equal('AdminApiDisabled');
        expect(res.body.description).to.include('ADMIN_API_KEY');
      }
    });
  });
});
