/** An error as it crosses between threads: a cloned Error keeps neither its class nor its `code`. */

export interface ErrorRecord {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

export function errorRecord(error: unknown): ErrorRecord {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(typeof code === 'string' ? { code } : {}),
  };
}

export function fromRecord(record: ErrorRecord): Error {
  const error = new Error(record.message) as Error & { code?: string };
  error.name = record.name;
  if (record.stack !== undefined) error.stack = record.stack;
  if (record.code !== undefined) error.code = record.code;
  return error;
}
