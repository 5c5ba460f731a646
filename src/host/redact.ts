/** Names of fields whose values are secrets, whatever they hold. */
const SECRET_KEY =
  /pass(word|phrase)?|secret|token|api[-_]?key|auth|credential|private[-_]?key|cookie|session[-_]?id/i;
/** Credentials wherever they appear in a string: auth schemes, provider key prefixes, JWTs, PEM private keys. */
const SECRET_IN_TEXT =
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bAKIA[A-Z0-9]{16}\b|\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

export const REDACTED = '[redacted]';
const MAX_DEPTH = 6;
const MAX_ITEMS = 100;
const MAX_STRING = 1000;

/**
 * A copy of `value` for the activity log: values under secret-looking keys and secret-looking strings become
 * `[redacted]`; long strings are cut, and depth and width are bounded (so a huge argument costs a bounded walk).
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    const cut = value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… (${value.length} chars)` : value;
    return redactText(cut);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ITEMS).map((item) => redact(item, depth + 1));
    if (value.length > MAX_ITEMS) out.push(`… (${value.length - MAX_ITEMS} more)`);
    return out;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n++ >= MAX_ITEMS) {
      out['…'] = 'more fields';
      break;
    }
    const item = (value as Record<string, unknown>)[key];
    out[key] =
      SECRET_KEY.test(key) && item !== undefined && item !== null ? REDACTED : redact(item, depth + 1);
  }
  return out;
}

/** Whether a field, flag or variable called `name` holds a secret (`token`, `api_key`, `password`, …). */
export function isSecretName(name: string): boolean {
  return SECRET_KEY.test(name);
}

/** `text` with every credential-looking part replaced by `[redacted]`. */
export function redactText(text: string): string {
  return text.replace(SECRET_IN_TEXT, REDACTED);
}
