/** An action a button starts: busy while it runs, and what went wrong, in the app's words. */
import { useState } from 'preact/hooks';
import { ApiProblem } from './api.js';

export interface Attempt {
  busy: boolean;
  problem: ApiProblem | null;
  run(work: () => Promise<void>): Promise<void>;
}

/** `asProblem` turns what the work threw into a problem to show. */
export function useAttempt(asProblem: (error: unknown) => ApiProblem): Attempt {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  return {
    busy,
    problem,
    async run(work) {
      setBusy(true);
      setProblem(null);
      try {
        await work();
      } catch (error) {
        setProblem(asProblem(error));
      } finally {
        setBusy(false);
      }
    },
  };
}
