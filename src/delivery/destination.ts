/**
 * Where a delivery to a subscriber's URL may connect. A subscriber picks its webhook URL and
 * push endpoint, so without a check anyone could make the server POST into its own network
 * (cloud metadata at 169.254.169.254, services on loopback, private hosts): SSRF.
 *
 * Before each attempt the URL's host is resolved, every address it resolves to is checked
 * (one private address among public ones is enough to refuse: the connection could use it),
 * and the connection then goes to exactly those checked addresses (`pinnedLookup`), not to a
 * second resolution that could answer otherwise (DNS rebinding). A refusal is permanent: no
 * retry can change where the subscriber pointed. A name that does not resolve is retried
 * (DNS may be down for a while).
 */
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { nonPublicRange, parseIpAddress } from '../net/ip-ranges.js';
import { DeliveryError } from './channel.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver (`getaddrinfo`, as `http.request` itself would use). */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

export interface DestinationPolicy {
  /** Private and loopback addresses may receive (local development, this repository's tests). */
  allowPrivateAddresses: boolean;
  resolve: Resolver;
}

/**
 * The addresses to connect to for a URL's host (`URL.hostname`), all of them checked unless
 * private ones are allowed. Throws a `DeliveryError`: permanent for a refused destination.
 */
export async function vetDestination(
  hostname: string,
  policy: DestinationPolicy,
): Promise<ResolvedAddress[]> {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const literal = parseIpAddress(host);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: host, family: literal.family }];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new DeliveryError(`cannot resolve ${host}: ${code}`, { cause: error });
    }
    if (addresses.length === 0) throw new DeliveryError(`${host} resolves to no address`);
  }
  if (policy.allowPrivateAddresses) return addresses;
  for (const { address } of addresses) {
    const parsed = parseIpAddress(address);
    const range = parsed ? nonPublicRange(parsed) : 'not an IP address';
    if (range) {
      const via = address === host ? '' : ` resolves to ${address}, which`;
      throw new DeliveryError(
        `destination refused: ${host}${via} is ${range}; notices go to public addresses only ` +
          '(DELIVERY_ALLOW_PRIVATE_HOSTS)',
        { permanent: true },
      );
    }
  }
  return addresses;
}

/**
 * A `lookup` for `http.request` that answers with the checked addresses, whatever it is asked:
 * all of them when the socket tries several (`autoSelectFamily`), else the first.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [...addresses]);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
}
