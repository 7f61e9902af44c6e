/**
 * State that every copy of a support module shares within one test run. Mocha loads a spec as
 * CommonJS when it can and as an ES module when it cannot (one that reads `import.meta`), so a
 * support module can be loaded twice, each copy with module-level state of its own: the root
 * hooks would then stop only their copy's PostgreSQL cluster and chains, and the other copy's
 * would be left to the process's exit (a cluster's directory stayed in the temp dir).
 */
export function runSingleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  const key = Symbol.for(`batchbook.test.${name}`);
  return (store[key] ??= create());
}
