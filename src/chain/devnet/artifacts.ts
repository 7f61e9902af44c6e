/**
 * Compiled contracts the devnet deploys, read from their npm packages' JSON. Only this JSON is
 * used: the GPv2 files carry the exact mainnet creation code and constructor arguments, which is
 * what makes the contracts land at their canonical addresses.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { InterfaceAbi } from 'ethers';

export interface Artifact {
  abi: InterfaceAbi;
  /** Creation code, 0x-prefixed. */
  bytecode: string;
}

/** A hardhat-deploy record of a mainnet deployment. */
export interface MainnetDeployment extends Artifact {
  /** Where it lives on mainnet (checksummed). */
  address: string;
  /** The constructor arguments used on mainnet. */
  args: readonly unknown[];
}

const require = createRequire(import.meta.url);

function load<T extends Artifact>(request: string): T {
  const json = require(request) as T;
  const bytecode = json.bytecode.startsWith('0x') ? json.bytecode : `0x${json.bytecode}`;
  return { ...json, bytecode };
}

function gpv2(name: string): MainnetDeployment {
  return load<MainnetDeployment>(`@cowprotocol/contracts/deployments/mainnet/${name}.json`);
}

export const authenticatorImplementationArtifact = (): MainnetDeployment =>
  gpv2('GPv2AllowListAuthentication_Implementation');

export const authenticatorProxyArtifact = (): MainnetDeployment =>
  gpv2('GPv2AllowListAuthentication_Proxy');

export const settlementArtifact = (): MainnetDeployment => gpv2('GPv2Settlement');

/** WETH9 as compiled for Uniswap v2 (its JSON's bytecode has no 0x prefix). */
export const weth9Artifact = (): Artifact => load('@uniswap/v2-periphery/build/WETH9.json');

/** OpenZeppelin 4's mintable ERC-20 (18 decimals; the deployer holds the minter role). */
export const erc20MinterArtifact = (): Artifact =>
  load('@openzeppelin/contracts/build/contracts/ERC20PresetMinterPauser.json');

/**
 * The contracts written for the devnet: their Solidity sources and the committed compile output
 * beside each (the service cannot compile at run time; scripts/compile-devnet-contracts.ts
 * writes them, and test/unit/chain/devnet-contract-artifacts.test.ts holds each equal to its
 * source's compilation).
 */
export const DEVNET_CONTRACTS = ['HooksTrampoline', 'CoWSwapEthFlow'] as const;
export type DevnetContract = (typeof DEVNET_CONTRACTS)[number];

export function devnetContractFiles(name: DevnetContract): { source: string; artifact: string } {
  return {
    source: fileURLToPath(new URL(`./contracts/${name}.sol`, import.meta.url)),
    artifact: fileURLToPath(new URL(`./contracts/${name}.json`, import.meta.url)),
  };
}

export const hooksTrampolineArtifact = (): Artifact =>
  load(devnetContractFiles('HooksTrampoline').artifact);

export const ethFlowArtifact = (): Artifact => load(devnetContractFiles('CoWSwapEthFlow').artifact);
