/**
 * `npm start`'s devnet and its ledger live and die together: the service launches anvil with its
 * state in the data directory; a restart keeps both the chain and the orders; a ledger that
 * starts empty (a new database) starts the chain fresh too.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { JsonRpcProvider, Wallet } from 'ethers';
import { orderBody, sellOrder, signTrade } from '../../support/settle.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import type { TestChain } from '../../support/chain.js';

describe('the embedded devnet of the service', function () {
  this.timeout(60_000);
  let dataDir: string;
  let service: TestService | undefined;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'batchbook-devnet-'));
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  /** The service with its own devnet (DEVNET_RPC_URL empty), on `databaseUrl` if given. */
  const start = async (databaseUrl?: string) => {
    service = await startTestService({
      env: { DEVNET_RPC_URL: '', DEVNET_PORT: '0', DATA_DIR: dataDir },
      ...(databaseUrl ? { databaseUrl } : {}),
    });
    const devnet = service.embeddedDevnet!;
    return {
      service,
      devnet,
      provider: new JsonRpcProvider(devnet.rpcUrl, 31337, { staticNetwork: true }),
    };
  };

  it('keeps chain and orders across a restart, and forgets the chain with the ledger', async () => {
    const first = await start();
    const { deployment } = first.devnet;
    const alice = new Wallet(deployment.accounts[0]!.privateKey);
    const [x, y] = deployment.tokens.map((t) => t.address);
    const chain = { deployment } as TestChain;
    const trade = await signTrade(
      chain,
      alice,
      sellOrder({ sellToken: x!, buyToken: y!, sellAmount: '5', buyAmount: '7' }),
    );
    const placed = await http('POST', `${first.service.devnet}/api/v1/orders`, orderBody(trade));
    expect(placed.status, placed.text).to.equal(201);
    const head = await first.provider.getBlock('latest');
    first.provider.destroy();
    const databaseUrl = first.service.databaseUrl;
    await first.service.stop();

    const again = await start(databaseUrl);
    expect(again.devnet.deployment.tokens).to.deep.equal(deployment.tokens);
    expect((await again.provider.getBlock(head!.number))?.hash).to.equal(head!.hash);
    const read = await http<{ status: string }>(
      'GET',
      `${again.service.devnet}/api/v1/orders/${trade.uid}`,
    );
    expect(read.body.status).to.equal('open');
    again.provider.destroy();
    await again.service.stop();

    // A new database: an empty ledger, so the chain starts over (same addresses, new blocks).
    const fresh = await start();
    expect(fresh.devnet.deployment.settlement).to.equal(deployment.settlement);
    expect((await fresh.provider.getBlock(head!.number))?.hash).not.to.equal(head!.hash);
    fresh.provider.destroy();
  });
});
