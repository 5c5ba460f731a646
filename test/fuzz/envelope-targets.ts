import fc from 'fast-check';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import { encodeMessage, parseMessage } from '../../src/jsonrpc/parse.js';
import type { JsonRpcMessage } from '../../src/jsonrpc/types.js';
import { expect, type FuzzTarget } from './target.js';

const id = fc.oneof(fc.string({ maxLength: 12 }), fc.integer());
const params = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });

/** Valid JSON-RPC messages of every kind. */
const validMessage: fc.Arbitrary<JsonRpcMessage> = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0' as const),
    id,
    method: fc.string({ minLength: 1, maxLength: 20 }),
    params,
  }),
  fc.record({
    jsonrpc: fc.constant('2.0' as const),
    method: fc.string({ minLength: 1, maxLength: 20 }),
    params,
  }),
  fc.record({ jsonrpc: fc.constant('2.0' as const), id, result: params }),
  fc.record({
    jsonrpc: fc.constant('2.0' as const),
    id: fc.oneof(id, fc.constant(null)),
    error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 20 }) }),
  }),
) as fc.Arbitrary<JsonRpcMessage>;

/** Near-misses: valid messages with one field broken, plus any JSON at all and any text. */
const anyText = fc.oneof(
  validMessage.map((m) => JSON.stringify(m)),
  fc
    .tuple(
      validMessage,
      fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error'),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([m, key, value]) => JSON.stringify({ ...m, [key]: value })),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.array(validMessage, { maxLength: 3 }).map((ms) => JSON.stringify(ms)),
);

const RPC_ERRORS = new Set<number>([ErrorCode.ParseError, ErrorCode.InvalidRequest]);

/** Any text: parseMessage never throws, and what it says is consistent with the text. */
export const envelopeAnyText: FuzzTarget<string> = {
  name: 'jsonrpc-envelope',
  weight: 3,
  arbitrary: anyText,
  check(text) {
    const parsed = parseMessage(text);
    let json: unknown;
    let isJson = true;
    try {
      json = JSON.parse(text);
    } catch {
      isJson = false;
    }
    switch (parsed.kind) {
      case 'invalid': {
        const e = parsed.error;
        expect(RPC_ERRORS.has(e.error.code), `unexpected code ${e.error.code}`);
        expect(isJson === (e.error.code !== ErrorCode.ParseError), 'parse error iff the text is not JSON');
        expect(e.id === null || typeof e.id === 'string' || Number.isInteger(e.id), 'error id shape');
        JSON.stringify(e);
        return;
      }
      case 'batch':
        expect(Array.isArray(json), 'a batch is an array');
        return;
      case 'message': {
        const m = parsed.message as unknown as Record<string, unknown>;
        expect(m.jsonrpc === '2.0', 'jsonrpc 2.0');
        expect('method' in m || 'result' in m || 'error' in m, 'a message has method, result or error');
        // What was accepted encodes again to the same JSON value.
        expect(encodeMessage(parsed.message) === JSON.stringify(json), 'encode round trip');
        return;
      }
    }
  },
};

/** Valid messages are always accepted as themselves. */
export const envelopeValid: FuzzTarget<JsonRpcMessage> = {
  name: 'jsonrpc-valid',
  weight: 1,
  arbitrary: validMessage,
  check(message) {
    const parsed = parseMessage(JSON.stringify(message));
    expect(parsed.kind === 'message', `valid message refused: ${JSON.stringify(parsed)}`);
    expect(JSON.stringify(parsed.message) === JSON.stringify(message), 'same message');
  },
};
