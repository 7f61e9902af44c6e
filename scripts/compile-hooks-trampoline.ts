/**
 * Compiles src/chain/devnet/contracts/HooksTrampoline.sol with solc-js (the test contracts'
 * settings, test/support/solidity.ts) and writes its ABI and creation code beside it, which the
 * devnet deploys. Run after changing the source: `node --import tsx scripts/compile-hooks-trampoline.ts`.
 */
import { writeFileSync } from 'node:fs';
import { HOOKS_TRAMPOLINE_FILES } from '../src/chain/devnet/artifacts.js';
import { compileContract } from '../test/support/solidity.js';

const { abi, bytecode } = compileContract(HOOKS_TRAMPOLINE_FILES.source, 'HooksTrampoline');
writeFileSync(HOOKS_TRAMPOLINE_FILES.artifact, `${JSON.stringify({ abi, bytecode }, null, 2)}\n`);
console.log(`wrote ${HOOKS_TRAMPOLINE_FILES.artifact} (${(bytecode.length - 2) / 2} bytes)`);
