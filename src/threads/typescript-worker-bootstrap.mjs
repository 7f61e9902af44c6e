// The first module of a TypeScript worker thread (src/threads/typescript-worker.ts): registers tsx,
// which Node 20 does not carry into workers from the process's `--import`, then loads the
// module named by the last argument.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
await import(process.argv[process.argv.length - 1]);
