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

  it('tells solvers the wrapped native token is trusted, unless a network lists its own', () => {
    const weth = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
    const usdc = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    expect([...loadConfig({}).auction.trustedTokens.get('mainnet')!]).to.deep.equal([weth]);
    const listed = loadConfig({
      MAINNET_TRUSTED_TOKENS: `${usdc.toUpperCase().replace('0X', '0x')}`,
    });
    expect([...listed.auction.trustedTokens.get('mainnet')!]).to.deep.equal([usdc]);
    expect(() => loadConfig({ MAINNET_TRUSTED_TOKENS: 'weth' })).to.throw(/MAINNET_TRUSTED_TOKENS/);
  });

  it('stops with its launcher under an npm script, unless told otherwise', () => {
    expect(loadConfig({ npm_lifecycle_event: 'start' }).stopWithParent).to.equal(true);
    expect(loadConfig({}).stopWithParent).to.equal(false);
    expect(loadConfig({ STOP_WITH_PARENT: 'true' }).stopWithParent).to.equal(true);
    expect(
      loadConfig({ npm_lifecycle_event: 'start', STOP_WITH_PARENT: 'false' }).stopWithParent,
    ).to.equal(false);
  });

  it('has an admin API key of its own; keyless by default but on the devnet alone', () => {
    expect(loadConfig({ ADMIN_API_KEY: 'operators' }).adminApiKey).to.equal('operators');
    // `npm start` on its defaults: /metrics answers to the key `devnet`.
    expect(loadConfig({}).adminApiKey).to.equal('devnet');
    // A public network, or another devnet node: no default key, so the admin endpoints are off.
    expect(loadConfig({ MAINNET_RPC_URL: 'https://rpc.example' }).adminApiKey).to.equal(null);
    expect(loadConfig({ DEVNET_RPC_URL: 'http://127.0.0.1:9545' }).adminApiKey).to.equal(null);
  });

  it('listens on loopback alone while the devnet’s defaults apply, unless HOST says where', () => {
    const host = (env: Record<string, string>) => loadConfig(env).host;
    // `npm start` on its defaults: keys everyone knows, notices to private addresses.
    expect(host({})).to.equal('127.0.0.1');
    expect(host({ ADMIN_API_KEY: 'a', NOTIFICATIONS_API_KEY: 'n' })).to.equal('127.0.0.1');
    // None of them in force: every interface, as before.
    const own = { ADMIN_API_KEY: 'a', NOTIFICATIONS_API_KEY: 'n' };
    expect(host({ ...own, DELIVERY_ALLOW_PRIVATE_HOSTS: 'false' })).to.equal('0.0.0.0');
    expect(host({ MAINNET_RPC_URL: 'https://node.example' })).to.equal('0.0.0.0');
    expect(host({ DEVNET_RPC_URL: 'http://127.0.0.1:9545' })).to.equal('0.0.0.0');
    // HOST on loopback exposes nothing; beyond it, with all three set, it is taken.
    for (const loopback of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) {
      expect(host({ HOST: loopback })).to.equal(loopback);
    }
    const exposed = { ...own, DELIVERY_ALLOW_PRIVATE_HOSTS: 'true', HOST: '0.0.0.0' };
    expect(host(exposed)).to.equal('0.0.0.0');
  });

  it('refuses a HOST beyond loopback on the devnet’s defaults, naming each one in force', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).to.be.instanceOf(ConfigError);
        return (error as Error).message;
      }
      return null;
    };
    for (const host of ['0.0.0.0', '::', '192.0.2.10', 'batchbook.example']) {
      const message = refusal({ HOST: host });
      expect(message, host).to.contain('HOST');
      for (const variable of ['ADMIN_API_KEY', 'NOTIFICATIONS_API_KEY']) {
        expect(message).to.contain(variable);
      }
      expect(message).to.contain('DELIVERY_ALLOW_PRIVATE_HOSTS');
    }
    const keys = { HOST: '0.0.0.0', ADMIN_API_KEY: 'a', NOTIFICATIONS_API_KEY: 'n' };
    expect(refusal(keys)).to.contain('DELIVERY_ALLOW_PRIVATE_HOSTS').and.not.contain('API_KEY');
    expect(refusal({ ...keys, ADMIN_API_KEY: '' })).to.contain('ADMIN_API_KEY');
    expect(refusal({ ...keys, DELIVERY_ALLOW_PRIVATE_HOSTS: 'false' })).to.equal(null);
    // With notifications off, their key and receivers open nothing.
    const off = { HOST: '0.0.0.0', NOTIFICATIONS_ENABLED: 'false' };
    expect(refusal(off)).to.contain('ADMIN_API_KEY').and.not.contain('NOTIFICATIONS_API_KEY');
    expect(refusal({ ...off, ADMIN_API_KEY: 'a' })).to.equal(null);
    // Beyond the devnet alone there are no such defaults.
    expect(refusal({ HOST: '0.0.0.0', MAINNET_RPC_URL: 'https://node.example' })).to.equal(null);
  });

  it('stops on a bad value, naming the variable', () => {
    const bad: Record<string, string>[] = [
      { DEVNET: 'maybe' },
      { MAINNET_RPC_URL: 'not a url' },
      { MAINNET_RPC_URL: 'wss://node.example' },
      { BASE_CONFIRMATIONS: '-1' },
      { INDEXER_POLL_INTERVAL_MS: '0' },
      { RPC_RETRIES: 'three' },
      { EXTERNAL_SOLVERS: 'not json' },
      { EXTERNAL_SOLVERS: '{"name": "a"}' },
      {
        EXTERNAL_SOLVERS:
          '[{"name": "builtin", "url": "http://s", "address": "0x' + '1'.repeat(40) + '"}]',
      },
      {
        EXTERNAL_SOLVERS:
          '[{"name": "a", "url": "ftp://s", "address": "0x' + '1'.repeat(40) + '"}]',
      },
      { EXTERNAL_SOLVERS: '[{"name": "a", "url": "http://s", "address": "0x12"}]' },
      {
        EXTERNAL_SOLVERS:
          '[{"name": "a", "url": "http://s", "address": "0x' +
          '1'.repeat(40) +
          '", "networks": ["moon"]}]',
      },
      { MAINNET_DRIVER_PRIVATE_KEY: '0x1234' },
      { SETTLEMENT_DEADLINE_MS: '10' },
      { SMTP_URL: 'http://mail.example' },
      { WEB_PUSH_VAPID_PRIVATE_KEY: 'only-one-half' },
    ];
    for (const env of bad) {
      const variable = Object.keys(env)[0]!;
      expect(() => loadConfig(env), variable)
        .to.throw(ConfigError)
        .with.property('message')
        .that.contains(variable);
    }
  });

  it('reads the solvers, the settlement deadline and the driver keys', () => {
    const address = `0x${'ab'.repeat(20)}`;
    const key = `0x${'11'.repeat(32)}`;
    const config = loadConfig({
      EXTERNAL_SOLVERS: JSON.stringify([
        {
          name: 'alpha',
          url: 'http://127.0.0.1:7872',
          address: address.toUpperCase().replace('0X', '0x'),
          quote: true,
        },
        { name: 'beta', url: 'https://beta.example/engine', address, networks: ['mainnet'] },
      ]),
      BUILTIN_SOLVER: 'false',
      BUILTIN_SOLVER_SLIPPAGE_BPS: '25',
      SOLVE_TIMEOUT_MS: '2500',
      MAINNET_DRIVER_PRIVATE_KEY: key.toUpperCase().replace('0X', '0x'),
    });
    expect(config.auction.externalSolvers).to.deep.equal([
      { name: 'alpha', url: 'http://127.0.0.1:7872', address, networks: null, quote: true },
      {
        name: 'beta',
        url: 'https://beta.example/engine',
        address,
        networks: ['mainnet'],
        quote: false,
      },
    ]);
    expect(() =>
      loadConfig({
        EXTERNAL_SOLVERS: JSON.stringify([
          { name: 'x', url: 'http://a.example', address, quote: 1 },
        ]),
      }),
    ).to.throw(/"quote" must be true or false/);
    expect(config.auction).to.include({
      builtinSolver: false,
      builtinSolverSlippageBps: 25,
      solveTimeoutMs: 2500,
      settlementDeadlineMs: 120_000,
    });
    expect([...config.auction.driverKeys]).to.deep.equal([['mainnet', key]]);
  });

  it('turns each delivery channel on with its settings; keyless by default but on the devnet alone', () => {
    expect(loadConfig({ MAINNET_RPC_URL: 'https://node.example' }).notifications).to.include({
      enabled: true,
      apiKey: null,
      email: null,
      webPush: null,
      telegram: null,
    });
    // The embedded devnet alone (`npm start` on its defaults) has notices on out of the box.
    expect(loadConfig({}).notifications.apiKey).to.equal('devnet');
    expect(loadConfig({ DEVNET_RPC_URL: 'http://127.0.0.1:9545' }).notifications.apiKey).to.equal(
      null,
    );
    const config = loadConfig({
      NOTIFICATIONS_API_KEY: 'k',
      SMTP_URL: 'smtp://mail.example:2525',
      WEB_PUSH_VAPID_PUBLIC_KEY: 'pub',
      WEB_PUSH_VAPID_PRIVATE_KEY: 'priv',
      TELEGRAM_BOT_TOKEN: 't',
    }).notifications;
    expect(config.apiKey).to.equal('k');
    expect(config.email).to.deep.equal({
      smtpUrl: 'smtp://mail.example:2525',
      from: 'batchbook <notices@localhost>',
      allowPlaintextAuth: false,
    });
    expect(config.webPush).to.deep.equal({
      publicKey: 'pub',
      privateKey: 'priv',
      subject: 'mailto:notices@localhost',
    });
    expect(config.telegram).to.deep.equal({ botToken: 't', apiUrl: 'https://api.telegram.org' });
    // The relay's credentials cross plaintext only when the operator says so.
    const plaintext = loadConfig({
      SMTP_URL: 'smtp://user:pass@mail.example:25',
      SMTP_ALLOW_PLAINTEXT_AUTH: 'true',
    });
    expect(plaintext.notifications.email?.allowPlaintextAuth).to.equal(true);
    // About 8 h of retries (1 s doubling to 1 h) before a delivery is given up.
    expect(config.delivery.maxAttempts).to.equal(20);
  });

  it('needs the operator’s VAPID subject beyond the devnet alone, as a mailto: or https: URL', () => {
    const live = {
      MAINNET_RPC_URL: 'https://node.example',
      WEB_PUSH_VAPID_PUBLIC_KEY: 'pub',
      WEB_PUSH_VAPID_PRIVATE_KEY: 'priv',
    };
    expect(() => loadConfig(live)).to.throw(ConfigError, 'WEB_PUSH_SUBJECT');
    expect(() => loadConfig({ ...live, WEB_PUSH_SUBJECT: 'ops@example.com' })).to.throw(
      ConfigError,
      'WEB_PUSH_SUBJECT',
    );
    for (const subject of ['mailto:ops@example.com', 'https://example.com/contact']) {
      const config = loadConfig({ ...live, WEB_PUSH_SUBJECT: subject });
      expect(config.notifications.webPush?.subject).to.equal(subject);
    }
  });

  it('never echoes a malformed URL, which may hold a password or an API key', () => {
    for (const name of ['SMTP_URL', 'REDIS_URL', 'MAINNET_RPC_URL']) {
      const secret = 'hunter2-s3cret';
      let message = '';
      try {
        loadConfig({ [name]: `::${secret}@nowhere` });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, name).to.contain(name);
      expect(message, name).not.to.contain(secret);
    }
  });

  it('delivers to private addresses on the devnet alone, unless told otherwise', () => {
    const allowed = (env: Record<string, string>) =>
      loadConfig(env).notifications.delivery.allowPrivateAddresses;
    // `npm start` on its defaults: local receivers work out of the box.
    expect(allowed({})).to.equal(true);
    // Anywhere else a subscriber must not reach the server's own network.
    expect(allowed({ MAINNET_RPC_URL: 'https://node.example' })).to.equal(false);
    expect(allowed({ DEVNET_RPC_URL: 'http://127.0.0.1:9545' })).to.equal(false);
    expect(allowed({ DELIVERY_ALLOW_PRIVATE_HOSTS: 'false' })).to.equal(false);
    expect(
      allowed({
        MAINNET_RPC_URL: 'https://node.example',
        DELIVERY_ALLOW_PRIVATE_HOSTS: 'true',
      }),
    ).to.equal(true);
    expect(() => allowed({ DELIVERY_ALLOW_PRIVATE_HOSTS: 'yes' })).to.throw(
      /DELIVERY_ALLOW_PRIVATE_HOSTS/,
    );
  });
});
