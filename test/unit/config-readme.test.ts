/**
 * The README's configuration table and src/config.ts say the same: every variable the service
 * reads is documented, every documented one is read, and a documented default is the default.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { NETWORKS } from '../../src/domain/networks.js';

const README = new URL('../../README.md', import.meta.url);

interface Row {
  variable: string;
  /** The default column, without its backticks where it is one literal. */
  fallback: string;
}

function configurationTable(): Row[] {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('\n## Configuration'));
  const body = section.slice(1, section.indexOf('\n## ', 1));
  return body
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variable, fallback] = line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return { variable: variable!.replace(/`/g, ''), fallback: fallback! };
    });
}

/**
 * `MAINNET_RPC_URL` → `<NETWORK>_RPC_URL`: the table names per-network variables once, and
 * variables of their own by their name (`DEVNET_PORT`).
 */
function documentedName(variable: string, documented: ReadonlySet<string>): string {
  if (documented.has(variable)) return variable;
  for (const { name } of NETWORKS) {
    const prefix = `${name.toUpperCase()}_`;
    if (variable.startsWith(prefix)) return `<NETWORK>_${variable.slice(prefix.length)}`;
  }
  return variable;
}

/** The variables `loadConfig` reads given `env`; npm's own (lowercase) are not the service's. */
function variablesRead(env: Record<string, string>, documented: ReadonlySet<string>): Set<string> {
  const read = new Set<string>();
  const tracked = new Proxy(env, {
    get(target, key) {
      if (typeof key === 'string' && key === key.toUpperCase())
        read.add(documentedName(key, documented));
      return Reflect.get(target, key);
    },
  });
  loadConfig(tracked);
  return read;
}

/** Settings that turn every optional part on, so that the variables only they read are read. */
const EVERYTHING_ON: Record<string, string>[] = [
  {},
  {
    MAINNET_RPC_URL: 'https://rpc.example',
    LEDGER: 'eventstoredb',
    EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
    FORK_URL: 'https://rpc.example',
    FORK_BLOCK: '1',
    METRICS_PORT: '9100',
    SMTP_URL: 'smtp://relay.example:25',
    WEB_PUSH_VAPID_PUBLIC_KEY: 'public',
    WEB_PUSH_VAPID_PRIVATE_KEY: 'private',
    WEB_PUSH_SUBJECT: 'mailto:ops@example.com',
    TELEGRAM_BOT_TOKEN: '123:abc',
    MAINNET_START_BLOCK: '1',
  },
];

describe('the README configuration table', () => {
  const rows = configurationTable();

  it('documents every variable the service reads, and reads every one it documents', () => {
    const documented = new Set(rows.map((row) => row.variable));
    const read = new Set(EVERYTHING_ON.flatMap((env) => [...variablesRead(env, documented)]));
    expect([...read].filter((v) => !documented.has(v)).sort(), 'read, not documented').to.eql([]);
    expect([...documented].filter((v) => !read.has(v)).sort(), 'documented, not read').to.eql([]);
    expect(documented.size, 'each variable documented once').to.equal(rows.length);
  });

  it('gives each variable the default the service takes when it is unset', () => {
    const literal = rows.filter((row) => /^`[^`]*`$/.test(row.fallback));
    expect(literal.length).to.be.greaterThan(40);
    for (const { variable, fallback } of literal) {
      const value = fallback.slice(1, -1);
      const name = variable.replace('<NETWORK>_', 'MAINNET_');
      // A network that is live reads all its variables; the default must change nothing.
      const base = { MAINNET_RPC_URL: 'https://rpc.example' };
      expect(loadConfig({ ...base, [name]: value }), variable).to.deep.equal(loadConfig(base));
    }
  });
});
