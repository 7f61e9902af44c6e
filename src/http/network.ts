/** Resolves the `{network}` path segment; an unknown network is a JSON 404. */
import type { Middleware } from 'koa';
import { networkByName, type Network } from '../domain/networks.js';
import { ApiError } from './errors.js';

export interface NetworkState {
  network: Network;
}

export const resolveNetwork: Middleware<NetworkState> = async (ctx, next) => {
  const name = (ctx as unknown as { params: Record<string, string> }).params.network ?? '';
  const network = networkByName(name);
  if (!network) throw new ApiError(404, 'NotFound', `unknown network "${name}"`);
  ctx.state.network = network;
  await next();
};
