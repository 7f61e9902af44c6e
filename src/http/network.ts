/**
 * Resolves the `{network}` path segment: an unknown network is a JSON 404, and a write to a
 * network that is not live (no RPC URL, so nothing on chain can be checked) is a 503 that names
 * the variable to set. Reads serve the read models whatever the chain's state.
 */
import type { Middleware } from 'koa';
import { networkByName, type Network } from '../domain/networks.js';
import { ApiError } from './errors.js';

export interface NetworkState {
  network: Network;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Reads sent as POST for their body (a list of UIDs): they write nothing either. */
const POSTED_READS = /\/api\/v1\/orders\/by_uids\/?$/i;

const isRead = (method: string, path: string): boolean =>
  READS.has(method) || (method === 'POST' && POSTED_READS.test(path));

export function resolveNetwork(liveNetworks: ReadonlySet<string>): Middleware<NetworkState> {
  return async (ctx, next) => {
    const name = (ctx as unknown as { params: Record<string, string> }).params.network ?? '';
    const network = networkByName(name);
    if (!network) throw new ApiError('NotFound', `unknown network "${name}"`);
    if (!isRead(ctx.method, ctx.path) && !liveNetworks.has(network.name)) {
      throw new ApiError(
        'NetworkNotLive',
        `${network.label} is not live on this server: set ${network.rpcUrlVariable} to its RPC URL`,
      );
    }
    ctx.state.network = network;
    await next();
  };
}
