import { expect } from 'chai';
import { rememberMisses } from '../../../src/chain/remembered-misses.js';

/** A lookup that counts its calls and finds only the keys in `known`. */
function countingLookup(known: ReadonlyMap<string, number>) {
  const asked: string[] = [];
  const lookup = async (key: string) => {
    asked.push(key);
    return known.get(key) ?? null;
  };
  return { asked, lookup };
}

describe('remembered misses', () => {
  let nowMs = 1_000_000;
  const clock = () => new Date(nowMs);

  it('answers a miss from memory until its while is over, and never keeps a found value', async () => {
    const { asked, lookup } = countingLookup(new Map([['found', 18]]));
    const remembered = rememberMisses(lookup, { clock, ttlMs: 1000 });
    expect(await remembered('missing')).to.equal(null);
    nowMs += 999;
    expect(await remembered('missing')).to.equal(null);
    expect(asked).to.deep.equal(['missing']);
    nowMs += 1;
    expect(await remembered('missing')).to.equal(null);
    expect(asked).to.deep.equal(['missing', 'missing']);

    expect(await remembered('found')).to.equal(18);
    expect(await remembered('found')).to.equal(18);
    expect(asked.filter((key) => key === 'found')).to.have.length(2);
  });

  it('keeps at most maxKeys misses, forgetting the oldest first', async () => {
    const { asked, lookup } = countingLookup(new Map());
    const remembered = rememberMisses(lookup, { clock, ttlMs: 60_000, maxKeys: 2 });
    for (const key of ['a', 'b', 'c']) await remembered(key);
    await remembered('c');
    await remembered('b');
    await remembered('a');
    expect(asked).to.deep.equal(['a', 'b', 'c', 'a']);
  });

  it('asks every time with a while of 0', async () => {
    const { asked, lookup } = countingLookup(new Map());
    const remembered = rememberMisses(lookup, { clock, ttlMs: 0 });
    await remembered('x');
    await remembered('x');
    expect(asked).to.deep.equal(['x', 'x']);
  });
});
