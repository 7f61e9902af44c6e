/**
 * A live stream's writer (src/http/event-stream.ts) over real Node streams: a client that takes
 * what it is sent gets every message in the text/event-stream format; one that stops taking it
 * is cut off once the bound waits for it, and nothing is written after.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createEventStream } from '../../../src/http/event-stream.js';

describe('event stream: the format and the bound of one client', () => {
  it('writes messages with their ids and multi-line data, and comments, as the format wants', () => {
    const chunks: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const stream = createEventStream(out, { maxBufferedBytes: 1024 });
    stream.send('{"a":1}', '7');
    stream.send('two\nlines');
    stream.comment('heartbeat\nnot a field');
    expect(chunks.join('')).to.equal(
      'id: 7\ndata: {"a":1}\n\n' + 'data: two\ndata: lines\n\n' + ': heartbeat not a field\n\n',
    );
    expect(stream.closed).to.equal(false);
  });

  it('cuts off a client that stopped reading once the bound waits for it, and writes no more', () => {
    let written = 0;
    // Takes the first chunk and never finishes it: everything after waits in the stream's buffer.
    const stalled = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer) {
        written += chunk.length;
      },
    });
    const stream = createEventStream(stalled, { maxBufferedBytes: 1000 });
    const message = 'x'.repeat(90);
    let sent = 0;
    while (!stream.closed && sent < 100) {
      stream.send(message);
      sent++;
    }
    expect(stream.closed).to.equal(true);
    expect(stalled.destroyed).to.equal(true);
    // About 1,000 bytes of ~100-byte messages fit before the cut.
    expect(sent).to.be.within(9, 12);
    stream.send(message);
    expect(written).to.be.below(200);
  });
});
