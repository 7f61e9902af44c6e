/**
 * What a live network's auctions are made of, on whichever thread runs them: the account that
 * sends its settlements, its solvers (the built-in one and the configured engines) and the
 * market they are shown. The serving thread makes them for quotes, the auction thread for
 * auctions.
 */
import { computeAddress } from 'ethers';
import type { BuiltinSolverParams } from '../auction/builtin-solver.js';
import { createExternalSolver } from '../auction/external-solver.js';
import type { MarketSources } from '../auction/round.js';
import type { Solver } from '../auction/solver.js';
import { devnetSolver } from '../chain/devnet/accounts.js';
import type { PriceEstimator } from '../chain/prices.js';
import type { ChainRpc } from '../chain/rpc.js';
import type { TokenDecimals } from '../chain/token-decimals.js';
import { createTokenFacts } from '../chain/token-facts.js';
import type { Config } from '../config.js';
import type { Address, Hex } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { Logger } from 'pino';

/**
 * The key of the account that sends `network`'s settlements: the configured one, else on a
 * local chain the devnet's allow-listed solver; null: its auctions are solved, never settled.
 */
export function driverKeyOf(config: Config, network: Network, local: boolean): Hex | null {
  return config.auction.driverKeys.get(network.name) ?? (local ? devnetSolver().privateKey : null);
}

/** The account a driver with `key` sends from, as solvers name it. */
export function driverAddressOf(key: Hex): Address {
  return computeAddress(key).toLowerCase() as Address;
}

/** The built-in solver's part in `network`'s auctions, competing as `driverAddress`. */
export function builtinSolverParams(
  config: Config,
  network: Network,
  driverAddress: Address,
): BuiltinSolverParams {
  return {
    address: driverAddress,
    wrappedNative: network.wrappedNativeToken.toLowerCase() as Address,
    slippageBps: BigInt(config.auction.builtinSolverSlippageBps),
  };
}

/**
 * `network`'s solvers: the built-in one (`builtin`, when it competes; it settles with the
 * driver's account, so only with one) and the configured engines.
 */
export function solversOf(
  config: Config,
  network: Network,
  builtin: Solver | null,
  logger: Logger,
): Solver[] {
  return [
    ...(builtin ? [builtin] : []),
    ...config.auction.externalSolvers
      .filter((solver) => solver.networks?.includes(network.name) ?? true)
      .map((solver) => createExternalSolver(solver, { logger })),
  ];
}

/** The market of a network: its pools and gas price from `prices`, token facts from its node. */
export function marketOf(
  prices: PriceEstimator,
  rpc: ChainRpc,
  decimals: TokenDecimals,
): MarketSources {
  return {
    pools: (tokens, block) => prices.pools(tokens, block),
    tokenFacts: createTokenFacts(rpc, decimals),
    gasPrice: (block) => prices.gasPrice(block),
  };
}
