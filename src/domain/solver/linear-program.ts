/**
 * A mixed-integer linear program as the solver states one, and the port through which it is
 * solved: the domain builds programs and reads their answers, an optimizer outside the domain
 * (HiGHS, `src/auction/linear-programs.ts`) solves them. Programs are maximised.
 */

/** A variable: its objective coefficient, its bounds, whether it is whole. */
export interface Column {
  gain: number;
  lower: number;
  upper: number;
  integer: boolean;
}

/** A constraint `lower ≤ Σ coefficient · column ≤ upper`, its terms keyed by column index. */
export interface Row {
  lower: number;
  upper: number;
  terms: readonly (readonly [column: number, coefficient: number])[];
}

export interface LinearProgram {
  columns: readonly Column[];
  rows: readonly Row[];
}

/**
 * An optimizer's answer: the values it chose (feasible within its tolerances) and the least
 * upper bound it proved on the objective (the optimum itself when it finished).
 */
export interface ProgramAnswer {
  values: Float64Array;
  objective: number;
  bound: number;
}

/**
 * Solves a program to optimality or to the effort its owner allows; null when it found no
 * feasible point.
 */
export type ProgramSolver = (program: LinearProgram) => ProgramAnswer | null;

/** Builds a program one column and one row at a time, handing out column indices. */
export class ProgramBuilder {
  readonly columns: Column[] = [];
  readonly rows: Row[] = [];

  column(gain: number, lower: number, upper: number, integer = false): number {
    this.columns.push({ gain, lower, upper, integer });
    return this.columns.length - 1;
  }

  row(lower: number, upper: number, terms: Row['terms']): void {
    if (terms.length > 0) this.rows.push({ lower, upper, terms });
  }

  program(): LinearProgram {
    return { columns: this.columns, rows: this.rows };
  }
}
