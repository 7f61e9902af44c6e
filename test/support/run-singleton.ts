/**
 * State that every copy of a support module shares within one test run. Mocha loads a spec as
 * CommonJS when it can and as an ES module when it cannot (one that reads `import.meta`), so a
 * support module can be loaded twice, each copy with module-level state of its own: the root
 * hooks would then stop only their copy's PostgreSQL cluster, and the other copy's would be
 * left to the process's exit (its directory stayed in the temp dir). The chains stay per copy:
 * the suites of each copy expect a chain only they have traded on.
 */
export function runSingleton<T>(name: string, create: () => T): T {
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  const key = Symbol.for(`batchbook.test.${name}`);
  return (store[key] ??= create());
}
