/** Read-model schema names are embedded in SQL text built once, so they are checked first. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function table(schema: string, name: string): string {
  if (!IDENTIFIER.test(schema)) throw new Error(`invalid read-model schema name: ${schema}`);
  return `"${schema}"."${name}"`;
}
