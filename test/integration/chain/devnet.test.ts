import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  Contract,
  type InterfaceAbi,
  MaxUint256,
  TypedDataEncoder,
  Wallet,
  concat,
  Interface,
  isCallException,
  parseEther,
  parseUnits,
} from 'ethers';
import {
  authenticatorImplementationArtifact,
  erc20MinterArtifact,
  hooksTrampolineArtifact,
  settlementArtifact,
} from '../../../src/chain/devnet/artifacts.js';
import { deployDevnet, type DemoToken } from '../../../src/chain/devnet/deploy.js';
import {
  devnetProvider,
  sendFromNode,
  type NodeTransaction,
} from '../../../src/chain/devnet/node-client.js';
import { deployPools } from '../../../src/chain/devnet/pools.js';
import { describeDevnet, startDevnet, type Devnet } from '../../../src/chain/devnet/devnet.js';
import type { Address } from '../../../src/domain/events.js';
import {
  HOOKS_TRAMPOLINE,
  SETTLEMENT_CONTRACT,
  VAULT_RELAYER,
  networkByName,
} from '../../../src/domain/networks.js';
import { startTestChain, type TestChain } from '../../support/chain.js';

const ERC20 = erc20MinterArtifact().abi;
const SETTLEMENT = settlementArtifact().abi;
const AUTHENTICATOR_ABI = authenticatorImplementationArtifact().abi;
const AUTHENTICATOR = '0x2c4c28ddbdac9c5e7055b4c863b72ea0149d8afe';
/** The deterministic-deployment proxy anvil predeploys. */
const PROXY: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
const FACTORY = [
  'function getPair(address, address) view returns (address)',
  'function createPair(address, address) returns (address)',
];
const PAIR = ['function getReserves() view returns (uint112, uint112, uint32)'];
const UNISWAP_V2_FACTORY = '0x9ae48baac11b92cc541c74fe00f2a1c6cb4489d9';
const UNISWAP_V2_ROUTER = '0x32d30ebfb0b797ad69013da5eda1f77a84eb7c71';
const ROUTER = [
  'function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)',
  'function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)',
];
/** Pairs named token0/token1 (by address), as the devnet lists them. */
const POOLS: [string, Address][] = [
  ['DUSD/WETH', '0xc0081439c1710395fcd32e631cd45ed9d4e87ca5'],
  ['DCOW/WETH', '0x54204720a9fe5350c7cbd1036f919718127c05b7'],
  ['DDAI/WETH', '0x1effcba11a083578c69f568e3c3b31616584365c'],
  ['DUSD/DCOW', '0xa8b7aacf4f6200e3c1d5d1ee13acb359a42773a3'],
];

describe('chain: the devnet', () => {
  describe('on a fresh chain', () => {
    let chain: TestChain;

    before(async () => {
      chain = await startTestChain();
    });
    after(async () => {
      await chain?.stop();
    });

    const call = (to: string, abi: InterfaceAbi, fn: string, ...args: unknown[]) =>
      new Contract(to, abi, chain.provider).getFunction(fn)(...args);
    const balanceOf = (token: Address, owner: Address) => call(token, ERC20, 'balanceOf', owner);
    const allowance = (token: Address, owner: Address) =>
      call(token, ERC20, 'allowance', owner, VAULT_RELAYER);

    it('puts GPv2 at its canonical addresses', async () => {
      const { deployment, provider } = chain;
      expect(deployment.authenticator).to.equal(AUTHENTICATOR);
      expect(deployment.settlement).to.equal(SETTLEMENT_CONTRACT);
      expect(deployment.vaultRelayer).to.equal(VAULT_RELAYER);
      for (const address of [AUTHENTICATOR, SETTLEMENT_CONTRACT, VAULT_RELAYER])
        expect(await provider.getCode(address)).to.not.equal('0x');
      const settlement = (fn: string) => call(SETTLEMENT_CONTRACT, SETTLEMENT, fn);
      expect((await settlement('vaultRelayer')).toLowerCase()).to.equal(VAULT_RELAYER);
      expect((await settlement('authenticator')).toLowerCase()).to.equal(AUTHENTICATOR);
    });

    it('places the HooksTrampoline at its canonical address, serving only the settlement', async () => {
      const { deployment, provider } = chain;
      expect(deployment.hooksTrampoline).to.equal(HOOKS_TRAMPOLINE);
      expect(networkByName('devnet')!.hooksTrampoline).to.equal(HOOKS_TRAMPOLINE);
      const trampoline = new Contract(HOOKS_TRAMPOLINE, hooksTrampolineArtifact().abi, provider);
      expect((await trampoline.getFunction('settlement')()).toLowerCase()).to.equal(
        SETTLEMENT_CONTRACT,
      );
      const hooks = [{ target: deployment.weth.address, callData: '0x', gasLimit: 10_000n }];
      const execute = trampoline.getFunction('execute');
      const notASettlement = trampoline.interface.getError('NotASettlement')!.selector;
      // Anyone else is refused, even with no hooks at all.
      for (const [from, list] of [
        [deployment.solver.address, hooks],
        [deployment.accounts[0]!.address, []],
      ] as const) {
        const refused = await execute.staticCall(list, { from }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(isCallException(refused) && refused.data, from).to.equal(notASettlement);
      }
      await execute.staticCall(hooks, { from: SETTLEMENT_CONTRACT });
    });

    it('gives each hook exactly its gas limit, ignoring its failure, or reverts with NotEnoughGas', async () => {
      const { provider } = chain;
      const trampoline = new Contract(HOOKS_TRAMPOLINE, hooksTrampolineArtifact().abi, provider);
      const execute = trampoline.getFunction('execute');
      // A hook whose target burns all the gas it is given (INVALID), then fails.
      const burner = Wallet.createRandom().address;
      await provider.send('anvil_setCode', [burner, '0xfe']);
      const hooks = [{ target: burner, callData: '0x', gasLimit: 1_000_000n }];
      const from = SETTLEMENT_CONTRACT;
      // The cheapest call that does not revert forwards the whole limit (EIP-150: 64/63 of it).
      const estimate: bigint = await execute.estimateGas(hooks, { from });
      expect(estimate > (1_000_000n * 64n) / 63n, `estimate ${estimate}`).to.equal(true);
      const short = await execute.staticCall(hooks, { from, gasLimit: 600_000n }).then(
        () => null,
        (error: unknown) => error,
      );
      const notEnoughGas = trampoline.interface.getError('NotEnoughGas')!.selector;
      expect(isCallException(short) && short.data).to.equal(notEnoughGas);
    });

    it("signs orders under the settlement's EIP-712 domain for chain 31337", async () => {
      const expected = TypedDataEncoder.hashDomain({
        name: 'Gnosis Protocol',
        version: 'v2',
        chainId: 31337,
        verifyingContract: SETTLEMENT_CONTRACT,
      });
      expect(await call(SETTLEMENT_CONTRACT, SETTLEMENT, 'domainSeparator')).to.equal(expected);
    });

    it('allow-lists the solver and nobody else', async () => {
      const { solver, accounts } = chain.deployment;
      const isSolver = (who: Address) => call(AUTHENTICATOR, AUTHENTICATOR_ABI, 'isSolver', who);
      expect(await isSolver(solver.address)).to.equal(true);
      expect(await isSolver(accounts[0]!.address)).to.equal(false);
    });

    it('serves WETH9 at the devnet network’s wrapped native token address', async () => {
      const { weth } = chain.deployment;
      expect(weth.address).to.equal(networkByName('devnet')!.wrappedNativeToken);
      expect(weth).to.include({ symbol: 'WETH', name: 'Wrapped Ether', decimals: 18 });
      expect(await call(weth.address, ERC20, 'name')).to.equal('Wrapped Ether');
      expect(await call(weth.address, ERC20, 'decimals')).to.equal(18n);
    });

    it('puts the Uniswap V2 factory and its pools at the same addresses on every fresh chain', async () => {
      const { deployment, provider } = chain;
      expect(deployment.uniswapV2Factory).to.equal(UNISWAP_V2_FACTORY);
      expect(deployment.uniswapV2Router).to.equal(UNISWAP_V2_ROUTER);
      expect(networkByName('devnet')!.uniswapV2).to.deep.equal([
        { factory: UNISWAP_V2_FACTORY, router: UNISWAP_V2_ROUTER },
      ]);
      const symbols = new Map(
        [deployment.weth, ...deployment.tokens].map((t) => [t.address, t.symbol]),
      );
      expect(
        deployment.pools.map((p) => [
          `${symbols.get(p.token0)}/${symbols.get(p.token1)}`,
          p.address,
        ]),
      ).to.deep.equal(POOLS);
      for (const address of [UNISWAP_V2_FACTORY, ...POOLS.map(([, pool]) => pool)])
        expect(await provider.getCode(address), address).to.not.equal('0x');
    });

    it('swaps through the real router, which finds the devnet’s pairs', async () => {
      const { deployment, provider } = chain;
      const trader = new Wallet(deployment.accounts[0]!.privateKey, provider);
      const owner = trader.address.toLowerCase() as Address;
      const [dusd, weth] = [deployment.tokens[0]!.address, deployment.weth.address];
      const snapshot = await chain.snapshot();
      try {
        const approve = new Contract(dusd, ERC20, trader).getFunction('approve');
        await (await approve(UNISWAP_V2_ROUTER, MaxUint256)).wait();
        const router = new Contract(UNISWAP_V2_ROUTER, ROUTER, trader);
        const path = [dusd, weth];
        const amountIn = parseUnits('3000');
        const amounts = (await router.getFunction('getAmountsOut')(amountIn, path)) as bigint[];
        const out = amounts[1]!;
        expect(out > parseEther('0.99'), String(out)).to.equal(true);
        const before = (await balanceOf(weth, owner)) as bigint;
        const swap = router.getFunction('swapExactTokensForTokens');
        await (await swap(amountIn, out, path, owner, MaxUint256)).wait();
        expect(await balanceOf(weth, owner)).to.equal(before + out);
      } finally {
        await chain.revert(snapshot);
      }
    });

    it('tops up a pool funded in part before minting its liquidity', async () => {
      const { deployment, provider } = chain;
      const { weth } = deployment;
      const deployer = deployment.deployer.address;
      const send = (tx: NodeTransaction) => sendFromNode(provider, tx);
      const erc20 = new Interface(ERC20);
      const snapshot = await chain.snapshot();
      try {
        // Fresh tokens under the demo symbols: no pair of them exists yet.
        const tokens: DemoToken[] = [];
        for (const { symbol, name } of deployment.tokens) {
          const data = concat([erc20MinterArtifact().bytecode, erc20.encodeDeploy([name, symbol])]);
          tokens.push({
            symbol,
            name,
            address: (await send({ from: deployer, data }))!,
            decimals: 18,
          });
        }
        // A start cut short: the WETH/DUSD pair made, a third of its DUSD sent, nothing minted.
        const dusd = tokens[0]!.address;
        const createPair = new Interface(FACTORY).encodeFunctionData('createPair', [
          weth.address,
          dusd,
        ]);
        await send({ from: deployer, to: UNISWAP_V2_FACTORY, data: createPair });
        const pair = (
          await call(UNISWAP_V2_FACTORY, FACTORY, 'getPair', weth.address, dusd)
        ).toLowerCase();
        const mint = erc20.encodeFunctionData('mint', [pair, parseUnits('1000000')]);
        await send({ from: deployer, to: dusd, data: mint });

        const setup = {
          provider,
          chainId: chain.deployment.chainId,
          deployer,
          weth,
          tokens,
          send,
          create2Proxy: PROXY,
        };
        const { pools } = await deployPools(setup);
        const pool = pools.find((p) => p.address === pair)!;
        const [reserve0, reserve1] = await call(pair, PAIR, 'getReserves');
        const reserves = new Map([
          [pool.token0, reserve0],
          [pool.token1, reserve1],
        ]);
        expect(reserves.get(weth.address)).to.equal(parseEther('1000'));
        expect(reserves.get(dusd)).to.equal(parseUnits('3000000'));
      } finally {
        await chain.revert(snapshot);
      }
    });

    it('funds the demo accounts and approves the vault relayer for every token', async () => {
      const { deployment } = chain;
      expect(deployment.tokens.map((t) => t.symbol)).to.deep.equal(['DUSD', 'DCOW', 'DDAI']);
      for (const account of deployment.accounts) {
        expect(new Wallet(account.privateKey).address.toLowerCase()).to.equal(account.address);
        for (const token of [deployment.weth, ...deployment.tokens]) {
          const funded = token === deployment.weth ? parseEther('100') : parseUnits('1000000');
          const what = `${token.symbol} of ${account.address}`;
          expect(await balanceOf(token.address, account.address), what).to.equal(funded);
          expect(await allowance(token.address, account.address), what).to.equal(MaxUint256);
        }
      }
    });

    it('deploys again without a transaction, to the same addresses', async () => {
      const before = await chain.provider.getBlockNumber();
      expect(await deployDevnet(chain.rpcUrl)).to.deep.equal(chain.deployment);
      expect(await chain.provider.getBlockNumber()).to.equal(before);
    });

    it('funds any owner for a test and reverts to a snapshot', async () => {
      const owner = Wallet.createRandom().address.toLowerCase() as Address;
      const dusd = chain.deployment.tokens[0]!.address;
      const weth = chain.deployment.weth.address;
      const snapshot = await chain.snapshot();
      await chain.fund(owner, dusd, 5n, { approve: 3n });
      await chain.fund(owner, weth, parseEther('2'));
      expect(await balanceOf(dusd, owner)).to.equal(5n);
      expect(await allowance(dusd, owner)).to.equal(3n);
      expect(await balanceOf(weth, owner)).to.equal(parseEther('2'));
      expect(await allowance(weth, owner)).to.equal(MaxUint256);
      const height = await chain.provider.getBlockNumber();
      await chain.mine(3);
      expect(await chain.provider.getBlockNumber()).to.equal(height + 3);

      await chain.revert(snapshot);
      expect(await balanceOf(dusd, owner)).to.equal(0n);
      expect(await chain.provider.getBlockNumber()).to.be.lessThan(height);
    });
  });

  describe('in a data directory', () => {
    let dataDir: string;
    let devnet: Devnet | undefined;

    before(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'batchbook-devnet-'));
    });
    afterEach(async () => {
      await devnet?.stop();
      devnet = undefined;
    });
    after(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    async function start(fresh: boolean): Promise<Devnet> {
      devnet = await startDevnet({ dataDir, port: 0, fresh });
      return devnet;
    }

    async function latestBlock(rpcUrl: string): Promise<{ number: number; hash: string | null }> {
      const provider = devnetProvider(rpcUrl);
      try {
        const block = await provider.getBlock('latest');
        return { number: block!.number, hash: block!.hash };
      } finally {
        provider.destroy();
      }
    }

    const addresses = ({ rpcUrl: _, ...deployment }: Devnet['deployment']) => deployment;

    it('keeps its chain across restarts, until started fresh', async () => {
      const first = await start(false);
      const provider = devnetProvider(first.rpcUrl);
      // Far more blocks than deploying takes (one per transaction, or fewer when batched).
      await provider.send('anvil_mine', ['0x64']);
      // As a chain saved before the devnet had a HooksTrampoline: the restart places it.
      await provider.send('anvil_setCode', [HOOKS_TRAMPOLINE, '0x']);
      provider.destroy();
      const mined = await latestBlock(first.rpcUrl);
      await first.stop();

      const second = await start(false);
      expect(addresses(second.deployment)).to.deep.equal(addresses(first.deployment));
      expect(await latestBlock(second.rpcUrl)).to.deep.equal(mined);
      const restarted = devnetProvider(second.rpcUrl);
      expect(await restarted.getCode(HOOKS_TRAMPOLINE)).to.not.equal('0x');
      restarted.destroy();
      await second.stop();

      const third = await start(true);
      expect(addresses(third.deployment)).to.deep.equal(addresses(first.deployment));
      expect((await latestBlock(third.rpcUrl)).number).to.be.lessThan(mined.number - 50);
    });

    it('describes itself for a newcomer', async () => {
      const { deployment } = await start(false);
      const text = describeDevnet(deployment);
      for (const expected of [
        deployment.rpcUrl,
        '31337',
        SETTLEMENT_CONTRACT,
        VAULT_RELAYER,
        `trampoline     ${HOOKS_TRAMPOLINE}`,
        deployment.weth.address,
        ...deployment.tokens.map((t) => t.address),
        deployment.accounts[0]!.privateKey,
        deployment.solver.address,
        `factory        ${UNISWAP_V2_FACTORY}`,
        ...POOLS.map(([pair, address]) => `${pair!.padEnd(15)}${address}`),
      ])
        expect(text).to.include(expected);
    });
  });
});
