import { expect } from 'chai';
import fc from 'fast-check';
import { backoffDelayMs, JITTER } from '../../../src/delivery/backoff.js';

describe('delivery backoff', () => {
  const policy = { baseMs: 1000, maxMs: 60_000 };

  it('doubles from the base after each failure, without jitter at the middle', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, 0.5))).to.deep.equal([
      1000, 2000, 4000, 8000, 16_000,
    ]);
  });

  it('stays at the cap, however many attempts failed', () => {
    expect(backoffDelayMs(7, policy, 0.5)).to.equal(60_000);
    expect(backoffDelayMs(1000, policy, 0.5)).to.equal(60_000);
    expect(backoffDelayMs(5000, policy, 0.99)).to.equal(60_000);
    expect(backoffDelayMs(5000, policy, 0)).to.equal(48_000);
  });

  it('spreads each delay over ±20%', () => {
    expect(backoffDelayMs(1, policy, 0)).to.equal(800);
    expect(backoffDelayMs(1, policy, 0.999_999)).to.equal(1200);
    expect(backoffDelayMs(3, policy, 0.25)).to.equal(3600);
  });

  it('treats a first attempt and anything below as the base', () => {
    expect(backoffDelayMs(0, policy, 0.5)).to.equal(1000);
    expect(backoffDelayMs(-3, policy, 0.5)).to.equal(1000);
  });

  it('is within the jitter band of the capped exponential, and never above the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempts, baseMs, extra, random) => {
          const p = { baseMs, maxMs: baseMs + extra };
          const nominal = Math.min(p.maxMs, baseMs * 2 ** (attempts - 1));
          const delay = backoffDelayMs(attempts, p, random);
          expect(Number.isInteger(delay)).to.equal(true);
          expect(delay).to.be.at.most(p.maxMs);
          expect(delay).to.be.at.least(Math.max(1, Math.floor(nominal * (1 - JITTER))));
          expect(delay).to.be.at.most(Math.ceil(nominal * (1 + JITTER)));
        },
      ),
    );
  });

  it('grows with the attempts for a given random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempts, random) =>
          backoffDelayMs(attempts + 1, policy, random) >= backoffDelayMs(attempts, policy, random),
      ),
    );
  });
});
