import { expect } from 'chai';
import { STREAM_PREFIXES, streams } from '../../../src/domain/events.js';

describe('streams', () => {
  it('every stream batchbook writes is under a prefix the projectors subscribe to', () => {
    // A stream without its prefix would be written and never projected.
    for (const [kind, name] of Object.entries(streams)) {
      const stream = (name as (network: string, key: never) => string)('devnet', '0x01' as never);
      expect(
        STREAM_PREFIXES.some((prefix) => stream.startsWith(prefix)),
        `${kind}: ${stream}`,
      ).to.equal(true);
    }
  });
});
