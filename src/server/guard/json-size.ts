/**
 * The length of a value's JSON text without making the text: what the audit records of every result. Walking a
 * plain JSON value is several times cheaper than `JSON.stringify` (no string is built); anything that is not plain
 * JSON data (an object with `toJSON`, a class instance, a BigInt) is measured by `JSON.stringify` itself, so the
 * answer is always `JSON.stringify(value).length`.
 */

/** `JSON.stringify(value)?.length` (undefined when the value has no JSON text: undefined, a function, a symbol). */
export function jsonLength(value: unknown): number | undefined {
  const n = measure(value, 0);
  return n < 0 ? undefined : n;
}

/** Deeper than this, the walk hands over to `JSON.stringify` (which also reports a cycle). */
const MAX_DEPTH = 64;

/** -1: no JSON text (skipped in an object, null in an array). */
function measure(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return stringLength(value);
    case 'number':
      return Number.isFinite(value) ? numberLength(value) : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      if (value === null) return 4;
      if (depth > MAX_DEPTH) return viaStringify(value);
      if (Array.isArray(value)) return arrayLength(value, depth);
      return objectLength(value, depth);
    case 'undefined':
    case 'function':
    case 'symbol':
      return -1;
    default:
      return viaStringify(value);
  }
}

function viaStringify(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? -1 : text.length;
}

function numberLength(n: number): number {
  // Small integers, the common case, without making their text.
  if (Number.isInteger(n) && n >= 0 && n < 1e9) {
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    return digits;
  }
  return String(n).length;
}

function arrayLength(array: unknown[], depth: number): number {
  if (Object.getPrototypeOf(array) !== Array.prototype) return viaStringify(array);
  const count = array.length;
  let n = count > 1 ? count + 1 : 2;
  for (let i = 0; i < count; i++) {
    const l = measure(array[i], depth + 1);
    n += l < 0 ? 4 : l;
  }
  return n;
}

function objectLength(object: object, depth: number): number {
  const proto = Object.getPrototypeOf(object);
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in object) return viaStringify(object);
  const record = object as Record<string, unknown>;
  let n = 2;
  let first = true;
  for (const key of Object.keys(record)) {
    const l = measure(record[key], depth + 1);
    if (l < 0) continue;
    n += stringLength(key) + 1 + l;
    if (first) first = false;
    else n++;
  }
  return n;
}

/** A string's JSON text length: quotes, and the escapes `JSON.stringify` writes (well-formed: lone surrogates). */
function stringLength(s: string): number {
  let n = s.length + 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) continue;
    if (c === 0x22 || c === 0x5c) n += 1;
    else if (c < 0x20) n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
    else if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      else n += 5;
    } else n += 5;
  }
  return n;
}
