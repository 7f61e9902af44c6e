/** Mocha root hooks: stop the shared embedded PostgreSQL once every suite has run. */
import { stopTestCluster } from './postgres.js';

export const mochaGlobalTeardown = async (): Promise<void> => {
  await stopTestCluster();
};
