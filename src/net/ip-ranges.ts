/**
 * Which IP addresses are public unicast, for the delivery channels: a subscriber chooses where
 * notices go, so the server must not be made to send them into its own network (SSRF). Pure.
 *
 * An address is public unless it lies in one of the special-purpose ranges below (IANA's IPv4
 * and IPv6 special-purpose registries, plus multicast and the reserved 240/4). IPv6 is refused
 * outside global unicast (2000::/3) altogether. IPv6 forms that carry an IPv4 address (mapped
 * `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`)
 * are judged by that IPv4 address: the kernel or a translator may deliver them to it.
 */

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

function parseIpv4(text: string): Uint8Array | null {
  const match = IPV4.exec(text);
  if (!match) return null;
  const parts = match.slice(1).map(Number);
  // Leading zeros are octal to some parsers: refuse the ambiguity.
  if (match.slice(1).some((p) => p.length > 1 && p.startsWith('0'))) return null;
  return parts.every((p) => p <= 255) ? Uint8Array.from(parts) : null;
}

function parseGroups(text: string): number[] | null {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (const [i, part] of parts.entries()) {
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (!v4) return null;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseIpv6(text: string): Uint8Array | null {
  // A zone (`fe80::1%eth0`) names the interface, not the address.
  const address = text.replace(/%[^%]+$/, '');
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0]!);
  const tail = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** An IPv4 dotted quad or an IPv6 address (with or without brackets); null for anything else. */
export function parseIpAddress(text: string): IpAddress | null {
  const v4 = parseIpv4(text);
  if (v4) return { family: 4, bytes: v4 };
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!bare.includes(':')) return null;
  const v6 = parseIpv6(bare);
  return v6 ? { family: 6, bytes: v6 } : null;
}

interface Range {
  prefix: Uint8Array;
  bits: number;
  name: string;
}

function range(cidr: string, name: string): Range {
  const [base, bits] = cidr.split('/');
  const address = parseIpAddress(base!);
  if (!address) throw new Error(`bad range ${cidr}`);
  return { prefix: address.bytes, bits: Number(bits), name };
}

function within(bytes: Uint8Array, { prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = 0xff & (0xff << Math.max(0, 8 - (bits - bit)));
    if ((bytes[bit / 8]! & mask) !== (prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

const V4_RANGES: readonly Range[] = [
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared (CGNAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

const V6_RANGES: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('2001:db8::/32', 'documentation'),
  range('2001::/23', 'IETF protocol assignments'),
  range('3fff::/20', 'documentation'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST = range('2000::/3', '');

/** IPv6 ranges whose addresses carry an IPv4 address, and where. */
const V4_CARRIERS: readonly (Range & { at: number })[] = [
  { ...range('::ffff:0:0/96', 'IPv4-mapped'), at: 12 },
  { ...range('::/96', 'IPv4-compatible'), at: 12 },
  { ...range('64:ff9b::/96', 'NAT64'), at: 12 },
  { ...range('2002::/16', '6to4'), at: 2 },
];

/**
 * The special-purpose range holding `address` (e.g. `loopback`, `private`,
 * `loopback (IPv4-mapped)`), or null when it is a public unicast address.
 */
export function nonPublicRange(address: IpAddress): string | null {
  const { bytes } = address;
  if (address.family === 4) return V4_RANGES.find((r) => within(bytes, r))?.name ?? null;
  const special = V6_RANGES.find((r) => within(bytes, r));
  if (special) return special.name;
  const carrier = V4_CARRIERS.find((r) => within(bytes, r));
  if (carrier) {
    const v4 = bytes.subarray(carrier.at, carrier.at + 4);
    const name = nonPublicRange({ family: 4, bytes: v4 });
    return name && `${name} (${carrier.name})`;
  }
  return within(bytes, GLOBAL_UNICAST) ? null : 'not global unicast';
}

/**
 * Why a URL's host (`URL.hostname`: IPv6 in brackets) is known not to be public without
 * resolving it: an IP literal in a special-purpose range, or `localhost` and its subdomains
 * (RFC 6761: they resolve to loopback). Null: an IP literal that is public, or a name (only
 * resolving it tells; delivery does).
 */
export function nonPublicHost(hostname: string): string | null {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback (localhost)';
  const address = parseIpAddress(host);
  return address && nonPublicRange(address);
}
