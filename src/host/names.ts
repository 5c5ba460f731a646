/** What model APIs accept as a tool name (OpenAI, Anthropic, Gemini agree on this much). */
export const MODEL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX = 64;
const HASH_LENGTH = 8;

/** One name to qualify: a server's own name for a tool or prompt. */
export interface NameRequest {
  server: string;
  name: string;
}

/** The key of a (server, name) pair in the map {@link qualifyNames} returns. */
export function nameKey(server: string, name: string): string {
  return `${server}\u0000${name}`;
}

/**
 * Gives every (server, name) pair a name valid for model APIs: `server<separator>name` with characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`. A name that is too long, or that two pairs would share (`a.b` and `a_b`), is
 * shortened and given a hash of the pair instead, for all pairs involved: the result depends on the set of pairs,
 * never on their order.
 */
export function qualifyNames(requests: readonly NameRequest[], separator: string): Map<string, string> {
  const plain = new Map<string, number>();
  const bases = requests.map((r) => {
    const base = `${sanitize(r.server)}${separator}${sanitize(r.name)}`;
    plain.set(base, (plain.get(base) ?? 0) + 1);
    return base;
  });
  const out = new Map<string, string>();
  const taken = new Set<string>();
  const hashed: number[] = [];
  bases.forEach((base, i) => {
    if (base.length <= MAX && plain.get(base) === 1) {
      taken.add(base);
      out.set(nameKey(requests[i]?.server ?? '', requests[i]?.name ?? ''), base);
    } else hashed.push(i);
  });
  // Sorted by the pair, so which of two (astronomically unlikely) hash collisions gets the salt is order-free.
  hashed.sort((a, b) => compare(requests[a] as NameRequest, requests[b] as NameRequest));
  for (const i of hashed) {
    const r = requests[i] as NameRequest;
    const base = bases[i] as string;
    let name = '';
    for (let salt = 0; salt < 1000; salt++) {
      const tag = fnv1a(salt === 0 ? nameKey(r.server, r.name) : `${nameKey(r.server, r.name)}\u0000${salt}`);
      name = `${base.slice(0, MAX - HASH_LENGTH - 1)}_${tag}`;
      if (!taken.has(name)) break;
    }
    taken.add(name);
    out.set(nameKey(r.server, r.name), name);
  }
  return out;
}

/** `text` with every character outside `[a-zA-Z0-9_-]` replaced by `_` (never empty). */
export function sanitize(text: string): string {
  const clean = text.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

function compare(a: NameRequest, b: NameRequest): number {
  const ka = nameKey(a.server, a.name);
  const kb = nameKey(b.server, b.name);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** FNV-1a (32 bits) of the UTF-16 code units, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(HASH_LENGTH, '0');
}
