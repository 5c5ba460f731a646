import { isJsonObject, type JsonObject } from '../../jsonrpc/types.js';
import { ConfigError, type ConfigPlace } from './config-error.js';

/**
 * Reads the fields of one JSON object of a config file, with errors naming the file, the server and the field.
 * Unknown fields are refused by {@link FieldReader.rejectUnknown}, so a misspelt `comand` is never ignored.
 */
export class FieldReader {
  readonly object: JsonObject;
  readonly #place: ConfigPlace;
  readonly #prefix: string;

  constructor(value: unknown, place: ConfigPlace, prefix = '') {
    if (!isJsonObject(value)) throw new ConfigError(place, `must be an object, got ${kind(value)}`);
    this.object = value;
    this.#place = place;
    this.#prefix = prefix;
  }

  /** An error about `field` (or about the object itself). */
  error(problem: string, field?: string): ConfigError {
    const path = field === undefined ? this.#place.field : this.#prefix + field;
    return new ConfigError({ ...this.#place, field: path }, problem);
  }

  /** Refuses every field not in `known`. */
  rejectUnknown(known: readonly string[]): void {
    for (const key of Object.keys(this.object)) {
      if (!known.includes(key)) throw this.error(`unknown field (expected one of: ${known.join(', ')})`, key);
    }
  }

  has(field: string): boolean {
    return this.object[field] !== undefined;
  }

  string(field: string): string | undefined {
    const value = this.object[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw this.error(`must be a string, got ${kind(value)}`, field);
    return value;
  }

  requiredString(field: string, why: string): string {
    const value = this.string(field);
    if (value === undefined || value.trim() === '') throw this.error(`missing: ${why}`, field);
    return value;
  }

  boolean(field: string): boolean | undefined {
    const value = this.object[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw this.error(`must be true or false, got ${kind(value)}`, field);
    return value;
  }

  positiveNumber(field: string): number | undefined {
    const value = this.object[field];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw this.error(`must be a positive number, got ${JSON.stringify(value)}`, field);
    return value;
  }

  stringArray(field: string): string[] | undefined {
    const value = this.object[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw this.error(`must be an array of strings, got ${kind(value)}`, field);
    return value.map((item, i) => {
      if (typeof item !== 'string') throw this.error(`must be a string, got ${kind(item)}`, `${field}[${i}]`);
      return item;
    });
  }

  stringRecord(field: string): Record<string, string> | undefined {
    const value = this.object[field];
    if (value === undefined) return undefined;
    if (!isJsonObject(value)) throw this.error(`must be an object of strings, got ${kind(value)}`, field);
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value)) {
      // Numbers and booleans are common in hand-written env blocks; anything else is a mistake.
      if (typeof item === 'string') out[key] = item;
      else if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
      else throw this.error(`must be a string, got ${kind(item)}`, `${field}.${key}`);
    }
    return out;
  }

  oneOf<T extends string>(field: string, allowed: readonly T[]): T | undefined {
    const value = this.string(field);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value))
      throw this.error(`must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`, field);
    return value as T;
  }

  /** A nested object's reader (its fields named `field.sub`). */
  nested(field: string): FieldReader | undefined {
    const value = this.object[field];
    if (value === undefined) return undefined;
    return new FieldReader(
      value,
      { ...this.#place, field: this.#prefix + field },
      `${this.#prefix}${field}.`,
    );
  }
}

/** A short name of a JSON value's kind for messages. */
export function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
