/**
 * The devnet deploys the committed artifacts of its own contracts, not their sources: the two
 * must not drift. After changing a source, run scripts/compile-devnet-contracts.ts.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import {
  DEVNET_CONTRACTS,
  devnetContractFiles,
  type Artifact,
} from '../../../src/chain/devnet/artifacts.js';
import { compileContract } from '../../support/solidity.js';

describe('devnet contract artifacts', function () {
  // solc-js compiles in process: about a second each.
  this.timeout(60_000);

  for (const name of DEVNET_CONTRACTS) {
    it(`${name} is what its source compiles to (ABI and creation code)`, () => {
      const files = devnetContractFiles(name);
      const compiled = compileContract(files.source, name);
      const committed = JSON.parse(readFileSync(files.artifact, 'utf8')) as Artifact;
      expect(committed.bytecode, 'run scripts/compile-devnet-contracts.ts').to.equal(
        compiled.bytecode,
      );
      expect(committed.abi).to.deep.equal(compiled.abi);
    });
  }
});
