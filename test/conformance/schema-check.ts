/**
 * A checker for the JSON-schema subset the execution-apis specification uses for the
 * debug_trace* results: type, required, properties, additionalProperties, items, anyOf,
 * pattern, minimum and `$ref: '#/components/schemas/<name>'`. A keyword outside the subset
 * is an error, so a schema the checker does not understand never passes silently.
 */

/** A JSON schema node. */
export type Schema = { [keyword: string]: unknown };

/** Schemas by the name `#/components/schemas/<name>` refers to. */
export type SchemaSet = ReadonlyMap<string, Schema>;

/** Keywords that only document. */
const ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'name']);
const CHECKED = new Set(['type', 'required', 'properties', 'additionalProperties', 'items', 'anyOf', 'pattern', 'minimum', '$ref']);
const REF_PREFIX = '#/components/schemas/';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

/** The schema a `$ref` names. */
export function resolveRef(schemas: SchemaSet, ref: unknown): Schema {
  if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${JSON.stringify(ref)}`);
  const schema = schemas.get(ref.slice(REF_PREFIX.length));
  if (!schema) throw new Error(`$ref ${ref} names no known schema`);
  return schema;
}

/** The violations of `value` against `schema` (empty when it conforms), each with its JSON path. */
export function checkSchema(value: unknown, schema: Schema, schemas: SchemaSet, path = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !CHECKED.has(keyword)) throw new Error(`${path}: schema keyword "${keyword}" is outside the checked subset`);
  }
  const errors: string[] = [];
  if (schema.$ref !== undefined) errors.push(...checkSchema(value, resolveRef(schemas, schema.$ref), schemas, path));
  if (schema.anyOf !== undefined) {
    const branches = schema.anyOf as Schema[];
    if (!branches.some((branch) => checkSchema(value, branch, schemas, path).length === 0)) errors.push(`${path}: matches none of the anyOf branches`);
  }
  if (typeof schema.type === 'string' && !matchesType(value, schema.type)) {
    errors.push(`${path}: expected ${schema.type}, got ${typeOf(value)}`);
    return errors;
  }
  if (typeof schema.pattern === 'string' && typeof value === 'string' && !new RegExp(schema.pattern).test(value)) {
    errors.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum) {
    errors.push(`${path}: ${value} is below the minimum ${schema.minimum}`);
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => errors.push(...checkSchema(item, schema.items as Schema, schemas, `${path}[${i}]`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of (schema.required as string[] | undefined) ?? []) {
      if (!(key in object)) errors.push(`${path}: missing required "${key}"`);
    }
    const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [key, field] of Object.entries(object)) {
      const declared = properties[key];
      if (declared) errors.push(...checkSchema(field, declared, schemas, `${path}.${key}`));
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${key}"`);
      else if (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null) {
        errors.push(...checkSchema(field, schema.additionalProperties as Schema, schemas, `${path}.${key}`));
      }
    }
  }
  return errors;
}
