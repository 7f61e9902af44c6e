/**
 * The optimizer behind the built-in solver's programs: HiGHS compiled to WebAssembly (the
 * `highs` package), loaded once per process. Solving is synchronous and pure: the same program
 * gets the same answer, so the solver stays a function of its auction.
 */
import { createRequire } from 'node:module';
import type { Highs, ModelData } from 'highs';
import type { LinearProgram, ProgramSolver } from '../domain/solver/linear-program.js';

/** How hard HiGHS works on one program: enough to prove small gaps, never a runaway search. */
export interface ProgramEffort {
  /** Stop once the incumbent is within this share of the bound. */
  relativeGap: number;
  /** Branch-and-bound nodes at most (a count, not a clock, so answers are reproducible). */
  maxNodes: number;
  presolve: boolean;
}

/** The built-in solver's effort: within 0.1 % or 500 nodes. */
export const SOLVER_EFFORT: ProgramEffort = { relativeGap: 1e-3, maxNodes: 500, presolve: false };

// Required rather than imported: the package's types read its ES module's default export as
// the whole CommonJS module; its CommonJS build carries the loader as `default` too.
const { default: loadHighs } = createRequire(import.meta.url)('highs') as {
  default: () => Promise<Highs>;
};

let runtime: Promise<Highs> | undefined;

/** The HiGHS runtime, loaded on first use. */
function highs(): Promise<Highs> {
  runtime ??= loadHighs();
  return runtime;
}

/**
 * A `ProgramSolver` backed by HiGHS, once its runtime has loaded. It keeps one HiGHS model for
 * the life of the process and passes it each program: setting the options costs several times
 * a small program's solve, so they are set once.
 */
export async function programSolver(effort: ProgramEffort = SOLVER_EFFORT): Promise<ProgramSolver> {
  const h = await highs();
  const model = h.createModel();
  model.options.set({
    output_flag: false,
    mip_rel_gap: effort.relativeGap,
    mip_max_nodes: effort.maxNodes,
    // Measured on the bench's programs: presolve costs 10–40 times the solve it shortens.
    presolve: effort.presolve ? 'on' : 'off',
  });
  return (program) => {
    if (program.columns.length === 0) return null;
    try {
      model.passModel(modelData(h, program));
      model.run();
    } catch (error) {
      // A program HiGHS refuses (a coefficient it cannot take) has no answer: the solver then
      // offers what it found without the optimizer, as it does when a program is infeasible.
      if (error instanceof h.errors.HighsError) return null;
      throw error;
    }
    if (Number(model.info.get('primal_solution_status')) !== h.constants.solutionStatus.feasible)
      return null;
    const objective = model.getObjectiveValue();
    const integer = program.columns.some((c) => c.integer);
    const bound = integer ? Number(model.info.get('mip_dual_bound')) : objective;
    return { values: model.getSolution().colValue, objective, bound };
  };
}

function modelData(h: Highs, program: LinearProgram): ModelData {
  const { columns, rows } = program;
  const starts = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (const row of rows) {
    for (const [column, coefficient] of row.terms) {
      indices.push(column);
      values.push(coefficient);
    }
    starts.push(indices.length);
  }
  return {
    numCols: columns.length,
    numRows: rows.length,
    sense: h.constants.objectiveSense.maximize,
    colCost: columns.map((c) => c.gain),
    colLower: columns.map((c) => c.lower),
    colUpper: columns.map((c) => c.upper),
    rowLower: rows.map((r) => (Number.isFinite(r.lower) ? r.lower : -h.infinity)),
    rowUpper: rows.map((r) => (Number.isFinite(r.upper) ? r.upper : h.infinity)),
    matrix: {
      format: 'csr',
      numRows: rows.length,
      numCols: columns.length,
      starts,
      indices,
      values,
    },
    integrality: columns.map((c) =>
      c.integer ? h.constants.variableType.integer : h.constants.variableType.continuous,
    ),
  };
}
