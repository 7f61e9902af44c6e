import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('runs the embedded devnet, indexed from block 0 without confirmations, by default', () => {
    const config = loadConfig({});
    expect(config.devnet).to.deep.equal({ enabled: true, port: 8545 });
    expect(config.rpcUrls.size).to.equal(0);
    expect(config.indexer.confirmations.get('devnet')).to.equal(0);
    expect(config.indexer.startBlocks.get('devnet')).to.equal(0);
    // Public chains: a few confirmations, and no history unless asked.
    expect(config.indexer.confirmations.get('mainnet')).to.equal(3);
    expect(config.indexer.startBlocks.has('mainnet')).to.equal(false);
  });

  it('makes a network live with its RPC URL, with its own confirmations and start block', () => {
    const config = loadConfig({
      XDAI_RPC_URL: 'https://rpc.gnosis.example',
      XDAI_CONFIRMATIONS: '12',
      XDAI_START_BLOCK: '30000000',
    });
    expect(config.rpcUrls.get('xdai')).to.equal('https://rpc.gnosis.example');
    expect(config.indexer.confirmations.get('xdai')).to.equal(12);
    expect(config.indexer.startBlocks.get('xdai')).to.equal(30_000_000);
  });

  it('launches no devnet with DEVNET=false, nor when DEVNET_RPC_URL names another node', () => {
    expect(loadConfig({ DEVNET: 'false' }).devnet.enabled).to.equal(false);
    const external = loadConfig({ DEVNET_RPC_URL: 'http://127.0.0.1:9545' });
    expect(external.devnet.enabled).to.equal(false);
    expect(external.rpcUrls.get('devnet')).to.equal('http://127.0.0.1:9545');
  });

  it('stops on a bad value, naming the variable', () => {
    const bad: Record<string, string>[] = [
      { DEVNET: 'maybe' },
      { MAINNET_RPC_URL: 'not a url' },
      { MAINNET_RPC_URL: 'wss://node.example' },
      { BASE_CONFIRMATIONS: '-1' },
      { INDEXER_POLL_INTERVAL_MS: '0' },
      { RPC_RETRIES: 'three' },
    ];
    for (const env of bad) {
      const variable = Object.keys(env)[0]!;
      expect(() => loadConfig(env), variable)
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains(variable);
    }
  });
});
