/**
 * The solver thread: the built-in solver (src/domain/solver through its adapter), asked one
 * auction at a time. Its synchronous work then stalls this thread, not the one serving
 * requests.
 */
import { parentPort } from 'node:worker_threads';
import { builtinSolverOf, type BuiltinSolverParams } from '../builtin-solver.js';
import type { Solver } from '../solver.js';
import type { FromSolverThread, ToSolverThread } from './messages.js';

const port = parentPort!;
/** The built-in solvers asked so far, one per account, network hub and slippage. */
const solvers = new Map<string, Solver>();
/** It runs to the end once begun: the service thread keeps the deadline. */
const never = new AbortController().signal;

function solverFor(params: BuiltinSolverParams): Solver {
  const key = `${params.address}/${params.wrappedNative}/${params.slippageBps}`;
  let solver = solvers.get(key);
  if (!solver) {
    solver = builtinSolverOf(params);
    solvers.set(key, solver);
  }
  return solver;
}

port.on('message', (message: ToSolverThread) => {
  const post = (answer: FromSolverThread) => port.postMessage(answer);
  solverFor(message.solver)
    .solve(message.auction, never)
    .then(
      (answer) => post({ type: 'answer', id: message.id, answer }),
      (err: unknown) => post({ type: 'failed', id: message.id, message: String(err) }),
    );
});
port.postMessage({ type: 'ready' } satisfies FromSolverThread);
