import fc from 'fast-check';
import { NdjsonDecoder, type NdjsonItem } from '../../src/framing/ndjson.js';
import { formatSseEvent, type SseEvent, SseParser } from '../../src/framing/sse.js';
import { cutBytes, cutText, expect, type FuzzTarget } from './target.js';

const utf8 = new TextEncoder();
const roundTrip = (text: string) => new TextDecoder().decode(utf8.encode(text));
const cuts = fc.array(fc.nat({ max: 4096 }), { maxLength: 12 });

/** What a decoder gives for `chunks`, errors as a marker so sequences compare. */
function decodeAll(decoder: NdjsonDecoder, chunks: readonly Uint8Array[]): string[] {
  const out: NdjsonItem[] = [];
  for (const chunk of chunks) out.push(...decoder.push(chunk));
  out.push(...decoder.end());
  return out.map((item) => (typeof item === 'string' ? `line:${item}` : `error:${item.code}`));
}

function sameList(a: readonly unknown[], b: readonly unknown[], what: string): void {
  expect(JSON.stringify(a) === JSON.stringify(b), `${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

/** Lines without a newline (a trailing `\r` would read as a CRLF terminator), joined by LF or CRLF, cut anywhere. */
export const ndjsonLines: FuzzTarget<{ lines: string[]; crlf: boolean[]; cuts: number[] }> = {
  name: 'ndjson-lines',
  weight: 2,
  arbitrary: fc.record({
    lines: fc.array(
      fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/\n/g, ' ').replace(/\r$/, '.')),
      { maxLength: 8 },
    ),
    crlf: fc.array(fc.boolean(), { maxLength: 8 }),
    cuts,
  }),
  check({ lines, crlf, cuts }) {
    const text = lines.map((line, i) => line + (crlf[i] ? '\r\n' : '\n')).join('');
    const got = decodeAll(new NdjsonDecoder(), cutBytes(utf8.encode(text), cuts));
    const want = lines.filter((l) => l !== '').map((l) => `line:${roundTrip(l)}`);
    sameList(got, want, 'decoded lines');
  },
};

/** Any bytes under a small limit: never throws, lines within the limit, and the chunking never changes the output. */
export const ndjsonBytes: FuzzTarget<{ bytes: number[]; cuts: number[]; max: number }> = {
  name: 'ndjson-bytes',
  weight: 2,
  arbitrary: fc.record({
    bytes: fc.array(
      fc.oneof(fc.constantFrom(0x0a, 0x0d, 0x7b, 0x22, 0xc3, 0xff), fc.integer({ min: 0, max: 255 })),
      { maxLength: 160 },
    ),
    cuts,
    max: fc.integer({ min: 1, max: 48 }),
  }),
  check({ bytes, cuts, max }) {
    const all = Uint8Array.from(bytes);
    const whole = decodeAll(new NdjsonDecoder({ maxMessageBytes: max }), [all]);
    const chunked = decodeAll(new NdjsonDecoder({ maxMessageBytes: max }), cutBytes(all, cuts));
    sameList(chunked, whole, 'chunked vs whole');
    for (const item of whole) {
      if (item.startsWith('line:')) {
        // UTF-16 units never outnumber the UTF-8 bytes they came from (an invalid byte becomes one U+FFFD).
        expect(item.length - 5 <= max, `line longer than the limit: ${item.length - 5} > ${max}`);
      }
    }
  },
};

const fieldText = fc.string({ unit: 'binary', maxLength: 24 });

/** Events formatted by formatSseEvent and cut anywhere parse back to themselves (line breaks normalised). */
export const sseRoundTrip: FuzzTarget<{ events: SseEvent[]; cuts: number[] }> = {
  name: 'sse-round-trip',
  weight: 2,
  arbitrary: fc.record({
    events: fc.array(
      fc.record(
        {
          data: fc.string({ unit: 'binary', maxLength: 60 }),
          event: fieldText,
          id: fieldText,
          retry: fc.nat({ max: 1_000_000 }),
        },
        { requiredKeys: ['data'] },
      ),
      { maxLength: 6 },
    ),
    cuts,
  }),
  check({ events, cuts }) {
    const text = events.map(formatSseEvent).join('');
    const parser = new SseParser();
    const got: SseEvent[] = [];
    for (const chunk of cutText(text, cuts)) got.push(...parser.push(chunk));
    const want = events.map((e) => {
      const out: SseEvent = { data: e.data.replace(/\r\n|\r/g, '\n') };
      const event = e.event?.replace(/[\r\n]/g, '');
      if (event !== undefined) out.event = event;
      const id = e.id?.replace(/[\r\n]/g, '');
      if (id !== undefined && !id.includes('\0')) out.id = id;
      if (e.retry !== undefined) out.retry = e.retry;
      return out;
    });
    sameList(got, want, 'parsed events');
  },
};

const sseAlphabet = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('\n', '\r', '\r\n', ':', ' ', 'data', 'id', 'event', 'retry', '\0'),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);

/** Any text, cut anywhere: the same events as the whole text at once, and a RangeError past the limit, nothing else. */
export const sseAnyText: FuzzTarget<{ parts: string[]; cuts: number[]; max: number }> = {
  name: 'sse-any-text',
  weight: 2,
  arbitrary: fc.record({
    parts: fc.array(sseAlphabet, { maxLength: 60 }),
    cuts,
    max: fc.integer({ min: 1, max: 200 }),
  }),
  check({ parts, cuts, max }) {
    const text = parts.join('');
    const run = (chunks: string[]): string[] => {
      const parser = new SseParser({ maxEventChars: max });
      const out: string[] = [];
      for (const chunk of chunks) {
        try {
          for (const e of parser.push(chunk)) out.push(JSON.stringify(e));
        } catch (error) {
          expect(error instanceof RangeError, `unexpected ${String(error)}`);
          out.push('too-large');
          return out;
        }
      }
      return out;
    };
    const whole = run([text]);
    const chunked = run(cutText(text, cuts));
    // Past the limit the two may stop at different points; up to there they agree.
    if (!whole.includes('too-large') && !chunked.includes('too-large'))
      sameList(chunked, whole, 'chunked vs whole');
    else {
      const n = Math.min(whole.indexOf('too-large') >>> 0, chunked.indexOf('too-large') >>> 0);
      sameList(
        chunked.slice(0, Math.min(n, chunked.length)),
        whole.slice(0, Math.min(n, whole.length)),
        'prefix',
      );
    }
  },
};
