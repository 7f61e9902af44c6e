/**
 * The devnet deploys the committed HooksTrampoline artifact, not its source: the two must not
 * drift. After changing the source, run scripts/compile-hooks-trampoline.ts.
 */
import { expect } from 'chai';
import {
  HOOKS_TRAMPOLINE_FILES,
  hooksTrampolineArtifact,
} from '../../../src/chain/devnet/artifacts.js';
import { compileContract } from '../../support/solidity.js';

describe('HooksTrampoline artifact', function () {
  // solc-js compiles in process: about a second.
  this.timeout(30_000);

  it('is what the source compiles to (ABI and creation code)', () => {
    const compiled = compileContract(HOOKS_TRAMPOLINE_FILES.source, 'HooksTrampoline');
    const committed = hooksTrampolineArtifact();
    expect(committed.bytecode, 'run scripts/compile-hooks-trampoline.ts').to.equal(
      compiled.bytecode,
    );
    expect(committed.abi).to.deep.equal(compiled.abi);
  });
});
