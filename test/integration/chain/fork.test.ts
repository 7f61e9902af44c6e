/**
 * Fork mode without internet: the test run's local chain with mainnet's chain id (GPv2 at its
 * canonical addresses, the eth-flow contract, pools) plays the upstream network, and the service
 * forks it: served as `mainnet`, live, its driver allow-listed, its eth-flow
 * orders indexed. A FORK_URL that does not answer stops the start, naming it.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Contract, Wallet, parseEther, toQuantity } from 'ethers';
import { authenticatorImplementationArtifact } from '../../../src/chain/devnet/artifacts.js';
import { devnetSolver } from '../../../src/chain/devnet/accounts.js';
import { devnetProvider } from '../../../src/chain/devnet/node-client.js';
import type { Address, Hex } from '../../../src/domain/events.js';
import { ETH_FLOW_CONTRACT } from '../../../src/domain/networks.js';
import type { ApiOrder } from '../../../src/queries/order-view.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { callEthFlow, ethFlowUid } from '../../support/eth-flow.js';
import { startForkService, type ForkService } from '../../support/fork.js';
import { freePort } from '../../support/ports.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { waitFor } from '../../support/wait.js';

const AUTHENTICATOR = '0x2c4c28ddbdac9c5e7055b4c863b72ea0149d8afe';

describe('fork mode', function () {
  this.timeout(60_000);

  let upstream: TestChain;
  let forked: ForkService;
  let service: TestService;
  let forkUrl: string;

  before(async () => {
    upstream = await sharedTestChain(1);
    forked = await startForkService(upstream.rpcUrl);
    ({ service, forkUrl } = forked);
  });
  after(async () => {
    await forked?.stop();
  });

  const isSolver = (rpcUrl: string) =>
    new Contract(
      AUTHENTICATOR,
      authenticatorImplementationArtifact().abi,
      devnetProvider(rpcUrl, 1),
    ).getFunction('isSolver')(devnetSolver().address) as Promise<boolean>;

  it('serves the network it forks under its own name, its driver allow-listed', async () => {
    const fork = devnetProvider(forkUrl, 1);
    try {
      expect(Number(await fork.send('eth_chainId', []))).to.equal(1);
      expect(await isSolver(forkUrl)).to.equal(true);
      expect((await http('GET', `${service.mainnet}/api/v1/version`)).status).to.equal(200);
    } finally {
      fork.destroy();
    }
  });

  it('indexes the eth-flow orders placed on the fork', async () => {
    const fork = devnetProvider(forkUrl, 1);
    try {
      const trader = Wallet.createRandom().address.toLowerCase() as Address;
      await fork.send('anvil_setBalance', [trader, toQuantity(parseEther('10'))]);
      await fork.send('anvil_impersonateAccount', [trader]);
      const now = (await fork.getBlock('latest'))!.timestamp;
      const order = {
        buyToken: upstream.deployment.tokens[0]!.address,
        receiver: trader,
        sellAmount: parseEther('1'),
        buyAmount: parseEther('6000'),
        appData: `0x${'00'.repeat(32)}` as Hex,
        feeAmount: 0n,
        validTo: now + 3600,
        partiallyFillable: false,
        quoteId: 7n,
      };
      await callEthFlow(fork, trader, 'createOrder', order);
      const uid = ethFlowUid(order, upstream.deployment.weth.address, 1);
      let found: ApiOrder | undefined;
      await waitFor(
        async () => {
          const answer = await http<ApiOrder>('GET', `${service.mainnet}/api/v1/orders/${uid}`);
          found = answer.status === 200 ? answer.body : undefined;
          return found !== undefined;
        },
        { timeoutMs: 20_000, description: 'the eth-flow order on the fork' },
      );
      expect(found).to.deep.include({ owner: ETH_FLOW_CONTRACT, onchainUser: trader });
    } finally {
      fork.destroy();
    }
  });

  it('stops the start when FORK_URL does not answer, naming it', async () => {
    const silent = `http://127.0.0.1:${await freePort()}`;
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'batchbook-fork-'));
    try {
      const error = await startTestService({
        env: { FORK_URL: silent, DEVNET_PORT: '0', DATA_DIR: elsewhere, MAINNET_RPC_URL: '' },
      }).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).to.include(`FORK_URL ${silent} does not answer`);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
