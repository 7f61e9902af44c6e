/** Shorthands for the OpenAPI objects batchbook's own endpoints are written with. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const json = (schemaObject: JsonObject) => ({ 'application/json': { schema: schemaObject } });
export const answer = (description: string, schemaObject: JsonObject) => ({
  description,
  content: json(schemaObject),
});
export const apiError = (description: string) => answer(description, schema('ApiError'));
export const messageError = (description: string) => answer(description, schema('MessageError'));
export const body = (name: string, description: string) => ({
  description,
  required: true,
  content: json(schema(name)),
});
export const string = (description: string, extra: JsonObject = {}) => ({
  type: 'string',
  description,
  ...extra,
});
export const object = (properties: Record<string, JsonObject>, optional: string[] = []) => ({
  type: 'object',
  required: Object.keys(properties).filter((key) => !optional.includes(key)),
  properties,
});
export const timestamp = (description: string) => string(description, { format: 'date-time' });
