import fc from 'fast-check';
import { McpkitError } from '../../src/jsonrpc/errors.js';
import { UriTemplate } from '../../src/spec/uri-template.js';
import { expect, type FuzzTarget } from './target.js';

const templatePiece = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '{',
      '}',
      '+',
      '#',
      '.',
      '/',
      ';',
      '?',
      '&',
      '=',
      ',',
      '*',
      ':',
      '%',
      '3',
      'a',
      'b',
      'x_y',
      '{a}',
      '{b*}',
      '{+a}',
      '{?a,b}',
      '{/a*}',
      '{a:3}',
      '{&c}',
      '{#a}',
      '{.b}',
      '{;a}',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
);
const uriPiece = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '/',
      '?',
      '&',
      '=',
      ',',
      '.',
      ';',
      '#',
      '%',
      '%2F',
      '%zz',
      'a',
      'b',
      'aaaa',
      'c=1',
      'x',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
);

/** The slowest single input tolerated before it counts as a hang (a runaway regular expression, say). */
const SLOW_MS = 250;

/** Any template text: parsed or refused with INVALID_DEFINITION; matching any URI never throws and stays fast. */
export const uriTemplateAny: FuzzTarget<{ template: string[]; uris: string[][]; repeat: number }> = {
  name: 'uri-template',
  weight: 2,
  arbitrary: fc.record({
    template: fc.array(templatePiece, { maxLength: 16 }),
    uris: fc.array(fc.array(uriPiece, { maxLength: 24 }), { maxLength: 3 }),
    repeat: fc.constantFrom(1, 1, 1, 200, 2000),
  }),
  check({ template, uris, repeat }) {
    let t: UriTemplate;
    try {
      t = new UriTemplate(template.join(''));
    } catch (error) {
      expect(
        error instanceof McpkitError && error.code === 'INVALID_DEFINITION',
        `unexpected ${String(error)}`,
      );
      return;
    }
    for (const parts of uris) {
      // A long repetitive URI is where a backtracking regular expression would blow up.
      const uri = repeat === 1 ? parts.join('') : parts.join('').repeat(repeat).slice(0, 65536);
      let m = t.match(uri);
      // A runaway match is slow every time; a busy machine pausing the process is not: the fastest of three counts.
      let took = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3 && took >= SLOW_MS; i++) {
        const started = performance.now();
        m = t.match(uri);
        took = Math.min(took, performance.now() - started);
      }
      expect(took < SLOW_MS, `match took ${took.toFixed(0)} ms on a ${uri.length}-character URI`);
      if (m !== undefined)
        for (const value of Object.values(m))
          expect(typeof value === 'string' || Array.isArray(value), 'value shape');
    }
  },
};

const varName = fc.constantFrom('a', 'b', 'c', 'id', 'path');
const operator = fc.constantFrom('', '+', '#', '.', '/', ';', '?', '&');
const literal = fc.constantFrom('', '/items/', '-', '/r/');
/**
 * Characters every operator either keeps as they are or percent-encodes, and that appear in no literal here: the
 * matcher never backtracks (no runaway regular expressions), so where a value could be read as the start of the
 * literal after it (`{/b}/r/{a}` with b = "r") it takes the literal's reading and the match fails.
 */
const plainChar = fc.constantFrom(...'abcfghjkopquvwz0123456789_ \0é日'.split(''), '😀');
/** Reserved characters, percent-encoded by every operator but `+` and `#` (which keep them, so they cannot come back). */
const reservedChar = fc.constantFrom('%', '?', '&', '=', ',', ';', ':', '@', '!', '$', '/');

/**
 * Templates with one variable per expression, each after a literal: expand then match gives the values back. The
 * values avoid what RFC 6570 expansion cannot undo: the label separator `.` (left as it is by `{.x}`), the text of
 * the literals (see plainChar), and reserved characters and `%` under `+` and `#` (kept as they are, so `%41`
 * expands to itself and reads back as `A`).
 */
export const uriTemplateRoundTrip: FuzzTarget<{
  pieces: { literal: string; op: string; name: string }[];
  values: Record<string, { plain: string[]; reserved: string[] }>;
}> = {
  name: 'uri-template-round-trip',
  weight: 2,
  arbitrary: fc.record({
    pieces: fc.uniqueArray(fc.record({ literal, op: operator, name: varName }), {
      maxLength: 3,
      selector: (p) => p.name,
    }),
    values: fc.dictionary(
      varName,
      fc.record({
        plain: fc.array(plainChar, { minLength: 1, maxLength: 8 }),
        reserved: fc.array(reservedChar, { maxLength: 4 }),
      }),
    ),
  }),
  check({ pieces, values }) {
    // Adjacent expressions without a literal between them cannot be split back apart, so a literal goes first.
    const text =
      pieces.map((p, i) => `${i === 0 || p.literal !== '' ? p.literal : '~'}{${p.op}${p.name}}`).join('') +
      '/end';
    const t = new UriTemplate(text);
    const vars: Record<string, string> = {};
    for (const p of pieces) {
      const v = values[p.name];
      if (v === undefined) continue;
      const keepsReserved = p.op === '+' || p.op === '#';
      vars[p.name] = v.plain.join('') + (keepsReserved ? '' : v.reserved.join(''));
    }
    const uri = t.expand(vars);
    const m = t.match(uri);
    expect(m !== undefined, `${text} did not match its own expansion ${uri}`);
    for (const [name, value] of Object.entries(vars)) {
      const want = new TextDecoder().decode(new TextEncoder().encode(value));
      expect(
        m[name] === want,
        `${text}: ${name} came back as ${JSON.stringify(m[name])}, want ${JSON.stringify(want)} (uri ${uri})`,
      );
    }
  },
};
