/**
 * Compiles the test contracts in test/support/contracts with solc-js, offline and in process.
 * Each source file is compiled once per process; a compile error throws with solc's messages.
 * Imports resolve against test/support/contracts first, then node_modules (OpenZeppelin).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { InterfaceAbi } from 'ethers';

export interface CompiledContract {
  abi: InterfaceAbi;
  bytecode: `0x${string}`;
}

const CONTRACTS_DIR = fileURLToPath(new URL('./contracts/', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
// anvil runs the latest hardfork; cancun is both supported there and old enough that solc's
// output never depends on what the newest default target would add.
const EVM_VERSION = 'cancun';

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: InterfaceAbi; evm: { bytecode: { object: string } } }>
  >;
}

const compiled = new Map<string, Record<string, CompiledContract>>();

function findImport(importPath: string): { contents: string } | { error: string } {
  for (const root of [CONTRACTS_DIR, NODE_MODULES]) {
    try {
      return { contents: readFileSync(path.join(root, importPath), 'utf8') };
    } catch {
      // not under this root: try the next
    }
  }
  return { error: `import not found: ${importPath}` };
}

function compileFile(file: string): Record<string, CompiledContract> {
  const absolute = path.resolve(CONTRACTS_DIR, file);
  // The source unit is named relative to CONTRACTS_DIR so its relative imports resolve there.
  const unit = path.relative(CONTRACTS_DIR, absolute);
  const input = {
    language: 'Solidity',
    sources: { [unit]: { content: readFileSync(absolute, 'utf8') } },
    settings: {
      evmVersion: EVM_VERSION,
      outputSelection: { [unit]: { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(
    solc.compile(JSON.stringify(input), { import: findImport }) as string,
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed on ${file}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const contracts: Record<string, CompiledContract> = {};
  for (const [name, contract] of Object.entries(output.contracts?.[unit] ?? {})) {
    contracts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
  return contracts;
}

/**
 * The ABI and creation bytecode of contract `name` in `file` (relative to test/support/contracts,
 * or absolute).
 */
export function compileContract(file: string, name: string): CompiledContract {
  const key = path.resolve(CONTRACTS_DIR, file);
  let contracts = compiled.get(key);
  if (contracts === undefined) {
    contracts = compileFile(file);
    compiled.set(key, contracts);
  }
  const contract = contracts[name];
  if (contract === undefined) throw new Error(`no contract ${name} in ${file}`);
  return contract;
}
