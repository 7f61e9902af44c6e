/** Mocha root hooks: stop the shared embedded PostgreSQL and devnet once every suite has run. */
import { stopSharedTestChains } from './chain.js';
import { stopTestCluster } from './postgres.js';

export const mochaGlobalTeardown = async (): Promise<void> => {
  await Promise.all([stopTestCluster(), stopSharedTestChains()]);
};
