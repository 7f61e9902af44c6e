import { expect } from 'chai';
import { createCoalescer } from '../../../src/queries/coalescer.js';

describe('createCoalescer', () => {
  it('fetches every key asked for in one turn with one call per group', async () => {
    const calls: [string, string[]][] = [];
    const lookup = createCoalescer<string, number>(async (group, keys) => {
      calls.push([group, [...keys]]);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, k.length]));
    });
    const results = await Promise.all([
      lookup('devnet', 'a'),
      lookup('devnet', 'bb'),
      lookup('devnet', 'a'),
      lookup('mainnet', 'ccc'),
      lookup('devnet', 'missing'),
    ]);
    expect(results).to.deep.equal([1, 2, 1, 3, null]);
    expect(calls).to.deep.equal([
      ['devnet', ['a', 'bb', 'missing']],
      ['mainnet', ['ccc']],
    ]);
  });

  it('starts a new fetch for keys asked for after the previous one', async () => {
    let fetches = 0;
    const lookup = createCoalescer<string, string>(async (_group, keys) => {
      fetches += 1;
      return new Map(keys.map((k) => [k, k]));
    });
    expect(await lookup('g', 'x')).to.equal('x');
    expect(await lookup('g', 'y')).to.equal('y');
    expect(fetches).to.equal(2);
  });

  it('rejects every waiter of a failed fetch, and only those', async () => {
    const lookup = createCoalescer<string, string>(async (group, keys) => {
      if (group === 'broken') throw new Error('database down');
      return new Map(keys.map((k) => [k, k]));
    });
    const [broken, fine] = await Promise.allSettled([lookup('broken', 'a'), lookup('ok', 'b')]);
    expect(broken.status).to.equal('rejected');
    expect(fine).to.deep.equal({ status: 'fulfilled', value: 'b' });
  });
});
