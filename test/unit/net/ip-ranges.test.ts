import { expect } from 'chai';
import fc from 'fast-check';
import { nonPublicHost, nonPublicRange, parseIpAddress } from '../../../src/net/ip-ranges.js';

/** The range `text` falls in; the text must parse. */
function rangeOf(text: string): string | null {
  const address = parseIpAddress(text);
  if (!address) throw new Error(`${text} did not parse`);
  return nonPublicRange(address);
}

describe('IP ranges (delivery destinations)', () => {
  it('parses IPv4, IPv6, bracketed, zoned and dotted-tail forms, and nothing else', () => {
    expect(parseIpAddress('192.0.2.1')).to.deep.equal({
      family: 4,
      bytes: Uint8Array.from([192, 0, 2, 1]),
    });
    const mapped = parseIpAddress('[::ffff:127.0.0.1]');
    expect(mapped?.family).to.equal(6);
    expect([...mapped!.bytes.subarray(10)]).to.deep.equal([0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIpAddress('fe80::1%eth0')?.bytes[0]).to.equal(0xfe);
    expect(parseIpAddress('1:2:3:4:5:6:7:8')?.bytes[15]).to.equal(8);
    for (const text of [
      'example.com',
      '',
      '256.0.0.1',
      '1.2.3',
      '01.2.3.4',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      '1:2:3:4:5:6:7:8::',
      '12345::1',
      '::1.2.3.256',
      'localhost',
    ]) {
      expect(parseIpAddress(text), text).to.equal(null);
    }
  });

  it('reads every IPv6 spelling as the address its canonical form names', () => {
    // WHATWG URL canonicalises IPv6 (compresses zeros, lowercases, drops a dotted tail).
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const canonical = new URL(`http://[${text}]/`).hostname;
        const parsed = parseIpAddress(text);
        expect(parsed, text).to.not.equal(null);
        expect(parsed).to.deep.equal(parseIpAddress(canonical));
      }),
    );
  });

  it('names every special-purpose IPv4 range, at both of its ends', () => {
    const cases: [string, string, string][] = [
      ['0.0.0.0', '0.255.255.255', 'unspecified'],
      ['10.0.0.0', '10.255.255.255', 'private'],
      ['100.64.0.0', '100.127.255.255', 'shared (CGNAT)'],
      ['127.0.0.0', '127.255.255.255', 'loopback'],
      ['169.254.0.0', '169.254.255.255', 'link-local'],
      ['172.16.0.0', '172.31.255.255', 'private'],
      ['192.0.0.0', '192.0.0.255', 'IETF protocol assignments'],
      ['192.0.2.0', '192.0.2.255', 'documentation'],
      ['192.88.99.0', '192.88.99.255', '6to4 relay anycast'],
      ['192.168.0.0', '192.168.255.255', 'private'],
      ['198.18.0.0', '198.19.255.255', 'benchmarking'],
      ['198.51.100.0', '198.51.100.255', 'documentation'],
      ['203.0.113.0', '203.0.113.255', 'documentation'],
      ['224.0.0.0', '239.255.255.255', 'multicast'],
      ['240.0.0.0', '255.255.255.255', 'reserved'],
    ];
    for (const [first, last, name] of cases) {
      expect(rangeOf(first), first).to.equal(name);
      expect(rangeOf(last), last).to.equal(name);
    }
  });

  it('lets public IPv4 addresses through, just outside each range', () => {
    for (const text of [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '172.15.255.255',
      '172.32.0.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '223.255.255.255',
    ]) {
      expect(rangeOf(text), text).to.equal(null);
    }
  });

  it('names the special IPv6 ranges and refuses all outside global unicast', () => {
    const cases: [string, string][] = [
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['fc00::1', 'unique-local'],
      ['fdff:ffff::1', 'unique-local'],
      ['fe80::1', 'link-local'],
      ['febf::1', 'link-local'],
      ['fec0::1', 'site-local'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['3fff::1', 'documentation'],
      ['2001::1', 'IETF protocol assignments'],
      ['100::1', 'discard-only'],
      ['64:ff9b:1::1', 'local-use NAT64'],
      ['1::', 'not global unicast'],
      ['4000::1', 'not global unicast'],
    ];
    for (const [text, name] of cases) expect(rangeOf(text), text).to.equal(name);
    for (const text of ['2606:4700:4700::1111', '2a00:1450:4001::1', '2400::1']) {
      expect(rangeOf(text), text).to.equal(null);
    }
  });

  it('judges IPv6 forms that carry an IPv4 address by that address', () => {
    const cases: [string, string | null][] = [
      ['::ffff:127.0.0.1', 'loopback (IPv4-mapped)'],
      ['::ffff:7f00:1', 'loopback (IPv4-mapped)'],
      ['::ffff:169.254.169.254', 'link-local (IPv4-mapped)'],
      ['::ffff:10.1.2.3', 'private (IPv4-mapped)'],
      ['::127.0.0.1', 'loopback (IPv4-compatible)'],
      ['::192.168.1.1', 'private (IPv4-compatible)'],
      ['64:ff9b::127.0.0.1', 'loopback (NAT64)'],
      ['64:ff9b::a9fe:a9fe', 'link-local (NAT64)'],
      ['2002:7f00:1::', 'loopback (6to4)'],
      ['2002:c0a8:101::1', 'private (6to4)'],
      ['::ffff:8.8.8.8', null],
      ['64:ff9b::1.1.1.1', null],
      ['2002:808:808::1', null],
    ];
    for (const [text, name] of cases) expect(rangeOf(text), text).to.equal(name);
  });

  it('refuses every IPv4-mapped address exactly when it refuses the IPv4 address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (v4) => {
        const plain = rangeOf(v4);
        const mapped = rangeOf(`::ffff:${v4}`);
        expect(mapped === null).to.equal(plain === null);
      }),
    );
  });

  it('knows URL hosts that are not public without resolving them', () => {
    const cases: [string, string | null][] = [
      ['localhost', 'loopback (localhost)'],
      ['LOCALHOST.', 'loopback (localhost)'],
      ['api.localhost', 'loopback (localhost)'],
      ['127.0.0.1', 'loopback'],
      ['[::1]', 'loopback'],
      ['[::ffff:a9fe:a9fe]', 'link-local (IPv4-mapped)'],
      ['0.0.0.0', 'unspecified'],
      ['hooks.example.com', null],
      ['localhost.example.com', null],
      ['8.8.8.8', null],
      ['[2606:4700:4700::1111]', null],
    ];
    for (const [host, name] of cases) expect(nonPublicHost(host), host).to.equal(name);
  });
});
