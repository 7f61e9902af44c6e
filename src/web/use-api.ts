/** A resource of the API as component state: read on mount, again on `reload` or a key change. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { asApiProblem, type ApiProblem } from './api.js';

export interface Resource<T> {
  data: T | undefined;
  problem: ApiProblem | null;
  loading: boolean;
  reload(): void;
}

/** `read` runs whenever `key` changes and on `reload`; null skips it. */
export function useApi<T>(key: string | null, read: () => Promise<T>): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [loading, setLoading] = useState(key !== null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (key === null) return;
    let current = true;
    setLoading(true);
    read().then(
      (value) => {
        if (!current) return;
        setData(value);
        setProblem(null);
        setLoading(false);
      },
      (error: unknown) => {
        if (!current) return;
        setProblem(asApiProblem(error));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // `read` is rebuilt each render; the key says when it reads something else.
  }, [key, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, problem, loading, reload };
}
