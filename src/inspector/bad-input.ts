/** Something the page sent that the inspector cannot act on (answered 400 with this message). */
export class BadInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadInput';
  }
}

/** `body` as an object, or BadInput. */
export function objectOf(body: unknown, what = 'the request body'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadInput(`${what} must be an object`);
  return body as Record<string, unknown>;
}

/** The string field `key` of `body`, or BadInput. */
export function stringField(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string') throw new BadInput(`"${key}" must be a string`);
  return value;
}

/** The optional string field `key` of `body`. */
export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  return body[key] === undefined ? undefined : stringField(body, key);
}

/** The optional object field `key` whose values are all strings (prompt arguments, headers, completion context). */
export function stringRecord(body: Record<string, unknown>, key: string): Record<string, string> | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  const record = objectOf(value, `"${key}"`);
  for (const [k, v] of Object.entries(record)) {
    if (typeof v !== 'string') throw new BadInput(`"${key}.${k}" must be a string`);
  }
  return record as Record<string, string>;
}
