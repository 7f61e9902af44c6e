/**
 * The chain reads of concurrent order submissions go to the node as one JSON-RPC batch
 * (`ChainRpc.request` with `batched`, src/chain/rpc.ts), against the real devnet behind an HTTP proxy that
 * records every request's body: each check still gets its own answer, a failed batch is retried
 * per check, a batch answered without some of its entries has those retried, and a hanging one
 * ends every check as ChainUnavailable after one time-out.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Wallet } from 'ethers';
import { createOrderChainChecks, type OrderChainChecks } from '../../../src/chain/order-checks.js';
import { ChainUnavailableError, createChainRpc, type ChainRpc } from '../../../src/chain/rpc.js';
import type { Address, Hex } from '../../../src/domain/events.js';
import { networkByName } from '../../../src/domain/networks.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { waitFor } from '../../support/wait.js';

interface RecordingProxy {
  url: string;
  /** The JSON body of every request received, in order. */
  bodies: unknown[];
  /**
   * What to do with the next requests: answer through the node, answer a batch with its first
   * entry only (as nodes above their batch cap do), drop the connection, or hang.
   */
  mode: 'forward' | 'first-only' | 'drop' | 'hang';
  close(): Promise<void>;
}

async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      proxy.bodies.push(JSON.parse(body));
      if (proxy.mode === 'drop') req.socket.destroy();
      if (proxy.mode === 'drop' || proxy.mode === 'hang') return;
      const firstOnly = proxy.mode === 'first-only';
      const headers = { 'content-type': 'application/json' };
      fetch(target, { method: 'POST', headers, body })
        .then(async (answer) => {
          const text = await answer.text();
          const parsed = JSON.parse(text) as unknown;
          const sent =
            firstOnly && Array.isArray(parsed) ? JSON.stringify(parsed.slice(0, 1)) : text;
          res.writeHead(answer.status, headers).end(sent);
        })
        .catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: RecordingProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies: [],
    mode: 'forward',
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return proxy;
}

const entries = (body: unknown) => (Array.isArray(body) ? body : [body]) as { method: string }[];
/** An entry as its method and parameters: the same call sent again compares equal. */
const call = (entry: { method: string; params?: unknown }) =>
  JSON.stringify([entry.method, entry.params]);

describe('chain checks of concurrent submissions share one JSON-RPC batch', function () {
  this.timeout(60_000);
  const devnet = networkByName('devnet')!;
  let chain: TestChain;
  let proxy: RecordingProxy;
  let rpc: ChainRpc;
  let checks: OrderChainChecks;
  let token: Address;
  const owners = {} as Record<'funded' | 'noBalance' | 'noAllowance', Address>;

  before(async () => {
    chain = await sharedTestChain();
    proxy = await startRecordingProxy(chain.rpcUrl);
    rpc = createChainRpc(devnet, proxy.url, { timeoutMs: 1_000, retries: 2 });
    checks = createOrderChainChecks(rpc, devnet);
    token = chain.deployment.tokens[0]!.address;
    const owner = () => Wallet.createRandom().address.toLowerCase() as Address;
    owners.funded = owner();
    owners.noBalance = owner();
    owners.noAllowance = owner();
    await chain.fund(owners.funded, token, 10n ** 18n);
    await chain.fund(owners.noBalance, token, 0n, { approve: 10n ** 18n });
    await chain.fund(owners.noAllowance, token, 10n ** 18n, { approve: 0n });
  });
  beforeEach(() => {
    proxy.bodies = [];
    proxy.mode = 'forward';
  });
  after(async () => {
    rpc?.close();
    await proxy?.close();
  });

  /** Checks started in one turn of the event loop, as by concurrent submissions. */
  const oneTurn = () => {
    const transfer = (owner: Address, sellToken = token) =>
      checks.transferProblem({
        owner,
        token: sellToken,
        sellAmount: 10n ** 18n,
        fullBalanceCheck: true,
      });
    return [
      transfer(owners.funded),
      transfer(owners.noBalance),
      transfer(owners.noAllowance),
      // No contract at the address: the call "succeeds" with no data, and getCode tells why.
      transfer(owners.funded, `0x${'ab'.repeat(20)}` as Address),
      checks.balanceOf(owners.noAllowance, token),
      // An account without code accepts no signature.
      checks.eip1271SignatureValid(owners.funded, `0x${'11'.repeat(32)}` as Hex, '0x1234'),
    ];
  };
  /** One turn's checks, their first batch handled as `mode` says and everything after forwarded. */
  const oneTurnFirstBatch = async (mode: RecordingProxy['mode']) => {
    proxy.mode = mode;
    const answers = Promise.all(oneTurn());
    await waitFor(() => proxy.bodies.length > 0, { description: 'the first batch' });
    proxy.mode = 'forward';
    return answers;
  };
  const expected = [
    null,
    { errorType: 'InsufficientBalance' },
    { errorType: 'InsufficientAllowance' },
    { errorType: 'TransferSimulationFailed', revertData: null },
    10n ** 18n,
    false,
  ];

  it('answers each check on its own, the first reads of all of them in one HTTP request', async () => {
    expect(await Promise.all(oneTurn())).to.deep.equal(expected);
    // First turn: the four transfer simulations, the balance and the signature check.
    const [first, ...later] = proxy.bodies.map(entries);
    expect(first!.map((e) => e.method)).to.deep.equal(Array(6).fill('eth_call'));
    // Then, each turn once: the allowance and balance behind each refusal, the missing
    // token's code; the missing token's allowance and balance.
    expect(later.map((batch) => batch.length)).to.deep.equal([5, 2]);
  });

  it('retries a batch whose connection dropped, each check answering as alone', async () => {
    // Once the batch has been dropped, the retries get through.
    expect(await oneTurnFirstBatch('drop')).to.deep.equal(expected);
    expect(entries(proxy.bodies[0]).length).to.equal(6);
    // Each check retries on its own back-off timer: under load the six may not fire in one
    // turn, so the retries can come as more than one batch (followed by the checks' follow-up
    // reads), but every dropped call is sent again.
    const later = new Set(proxy.bodies.slice(1).flatMap(entries).map(call));
    for (const dropped of entries(proxy.bodies[0])) expect(later).to.include(call(dropped));
  });

  it('sends again the entries a batch was answered without, each check answering as alone', async () => {
    expect(await oneTurnFirstBatch('first-only')).to.deep.equal(expected);
    // The first entry was answered; the five others were asked again.
    const [answered, ...unanswered] = entries(proxy.bodies[0]);
    const later = proxy.bodies.slice(1).flatMap(entries).map(call);
    for (const missing of unanswered) expect(later).to.include(call(missing));
    expect(later.filter((c) => c === call(answered!))).to.have.length(0);
  });

  it('sends nothing a provider closed in the same turn was asked', async () => {
    const closing = createChainRpc(devnet, proxy.url, { timeoutMs: 1_000, retries: 0 });
    const asked = closing.request('block number', (p) => p.send('eth_blockNumber', []), {
      batched: true,
    });
    closing.close();
    const outcome = await asked.then(
      () => null,
      (error: unknown) => error,
    );
    expect(outcome).to.be.instanceOf(ChainUnavailableError);
    expect((outcome as Error).message).to.include('provider destroyed');
    expect(proxy.bodies).to.deep.equal([]);
  });

  it('ends every check of a hanging batch as ChainUnavailable after one time-out', async () => {
    proxy.mode = 'hang';
    const started = Date.now();
    const outcomes = await Promise.allSettled(oneTurn());
    expect(Date.now() - started).to.be.below(2_000);
    for (const outcome of outcomes) {
      expect(outcome.status).to.equal('rejected');
      expect((outcome as PromiseRejectedResult).reason).to.be.instanceOf(ChainUnavailableError);
    }
    expect(proxy.bodies).to.have.length(1);
  });
});
