/** Checks a request body against its compiled JSON Schema; a mismatch is a 400 naming the field. */
import type { ValidateFunction } from 'ajv';
import { describeSchemaError } from '../../schemas/validators.js';
import type { ErrorType } from '../domain/errors.js';
import { ApiError } from './errors.js';

export function validated<T>(
  validate: ValidateFunction<T>,
  body: unknown,
  errorType: ErrorType = 'InvalidParameter',
): T {
  if (!validate(body)) throw new ApiError(errorType, describeSchemaError(validate));
  return body;
}
