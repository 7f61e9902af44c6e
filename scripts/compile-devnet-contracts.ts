/**
 * Compiles the devnet's own contracts (src/chain/devnet/contracts/*.sol) with solc-js (the test
 * contracts' settings, test/support/solidity.ts) and writes each one's ABI and creation code
 * beside it, which the devnet deploys. Run after changing a source:
 * `node --import tsx scripts/compile-devnet-contracts.ts`.
 */
import { writeFileSync } from 'node:fs';
import { DEVNET_CONTRACTS, devnetContractFiles } from '../src/chain/devnet/artifacts.js';
import { compileContract } from '../test/support/solidity.js';

for (const name of DEVNET_CONTRACTS) {
  const files = devnetContractFiles(name);
  const { abi, bytecode } = compileContract(files.source, name);
  writeFileSync(files.artifact, `${JSON.stringify({ abi, bytecode }, null, 2)}\n`);
  console.log(`wrote ${files.artifact} (${(bytecode.length - 2) / 2} bytes)`);
}
