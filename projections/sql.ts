/**
 * Schema names reach SQL as identifiers, so they are checked once here rather than escaped
 * everywhere: read models live in plain lowercase schemas such as `read` or `read_replay`.
 */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function checkSchemaName(schema: string): string {
  if (!IDENTIFIER.test(schema)) throw new Error(`invalid read-model schema name: ${schema}`);
  return schema;
}

/** `"schema"."table"`, for SQL text built once. */
export function qualified(schema: string, table: string): string {
  return `"${checkSchemaName(schema)}"."${table}"`;
}

/** SQL text built once per schema (live `read`, a replay's own) and reused for every batch. */
export function perSchema<T>(build: (schema: string) => T): (schema: string) => T {
  const built = new Map<string, T>();
  return (schema) => {
    let value = built.get(schema);
    if (value === undefined) built.set(schema, (value = build(schema)));
    return value;
  };
}
