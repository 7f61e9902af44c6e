/**
 * The token facts solvers are told: decimals and symbol as the token answers them, and what a
 * holder has of it at a named block, read once for that block however many quotes ask.
 */
import { expect } from 'chai';
import { type JsonRpcProvider, Wallet } from 'ethers';
import { createChainRpc, type ChainRpc } from '../../../src/chain/rpc.js';
import { createTokenDecimals } from '../../../src/chain/token-decimals.js';
import { createTokenFacts, type TokenFactsReader } from '../../../src/chain/token-facts.js';
import type { Address } from '../../../src/domain/events.js';
import { networkByName } from '../../../src/domain/networks.js';
import { startTestChain, type TestChain } from '../../support/chain.js';

const devnet = networkByName('devnet')!;

describe('chain: token facts', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let rpc: ChainRpc;
  const balanceCalls: string[] = [];
  const symbolCalls: string[] = [];
  const decimalsCalls: string[] = [];

  before(async () => {
    chain = await startTestChain();
    const node = createChainRpc(devnet, chain.rpcUrl);
    // Counts the balanceOf, symbol and decimals calls that reach the node, with their block tag.
    rpc = {
      ...node,
      request: (what, run, options) =>
        node.request(
          what,
          (provider) =>
            run({
              send: (method: string, params: unknown[]) => {
                const [call, tag] = params as [{ data?: string }, string];
                if (method === 'eth_call' && call.data?.startsWith('0x70a08231'))
                  balanceCalls.push(tag);
                if (method === 'eth_call' && call.data === '0x95d89b41') symbolCalls.push(tag);
                if (method === 'eth_call' && call.data === '0x313ce567') decimalsCalls.push(tag);
                return provider.send(method, params);
              },
            } as JsonRpcProvider),
          options,
        ),
    };
  });
  after(async () => {
    rpc?.close();
    await chain?.stop();
  });

  const token = (symbol: string): Address =>
    chain.deployment.tokens.find((t) => t.symbol === symbol)!.address;

  it('reads a holder’s balances once per block named, and anew at the next block', async () => {
    const facts: TokenFactsReader = createTokenFacts(rpc, createTokenDecimals(rpc));
    const holder = Wallet.createRandom().address.toLowerCase() as Address;
    const [dusd, ddai] = [token('DUSD'), token('DDAI')];
    await chain.fund(holder, dusd, 5n);
    const block = await chain.provider.getBlockNumber();
    balanceCalls.length = 0;

    const [first, again] = await Promise.all([
      facts.read([dusd, ddai], holder, block),
      facts.read([dusd], holder, block),
    ]);
    expect(first.get(dusd)).to.deep.equal({ decimals: 18, symbol: 'DUSD', availableBalance: 5n });
    expect(first.get(ddai)!.availableBalance).to.equal(0n);
    expect(again.get(dusd)!.availableBalance).to.equal(5n);
    expect((await facts.read([dusd], holder, block)).get(dusd)!.availableBalance).to.equal(5n);
    expect(balanceCalls).to.have.length(2);

    await chain.fund(holder, dusd, 2n);
    const next = await chain.provider.getBlockNumber();
    expect((await facts.read([dusd], holder, next)).get(dusd)!.availableBalance).to.equal(7n);
    expect(balanceCalls.slice(2)).to.deep.equal([`0x${next.toString(16)}`]);
    // The latest block, unnamed, is read every time.
    await facts.read([dusd], holder);
    await facts.read([dusd], holder);
    expect(balanceCalls.slice(3)).to.deep.equal(['latest', 'latest']);
  });

  it('keeps a symbol and decimals for good, and those found absent for the block only', async () => {
    const facts = createTokenFacts(rpc, createTokenDecimals(rpc));
    const holder = Wallet.createRandom().address.toLowerCase() as Address;
    // No contract there: no symbol, no decimals, nothing held.
    const nothing = Wallet.createRandom().address.toLowerCase() as Address;
    const dusd = token('DUSD');
    const block = await chain.provider.getBlockNumber();
    symbolCalls.length = 0;
    decimalsCalls.length = 0;
    for (let i = 0; i < 3; i++) {
      const read = await facts.read([dusd, nothing], holder, block);
      expect(read.get(nothing)).to.deep.equal({
        decimals: null,
        symbol: null,
        availableBalance: 0n,
      });
      expect(read.get(dusd)!.symbol).to.equal('DUSD');
    }
    expect(symbolCalls).to.have.length(2);
    expect(decimalsCalls).to.have.length(2);
    await chain.mine();
    await facts.read([dusd, nothing], holder, block + 1);
    expect(symbolCalls.slice(2)).to.deep.equal([`0x${(block + 1).toString(16)}`]);
    // Absent decimals are asked again at the next block named (token-decimals reads 'latest').
    expect(decimalsCalls.slice(2)).to.deep.equal(['latest']);
  });
});
