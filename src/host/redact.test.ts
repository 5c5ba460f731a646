import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REDACTED, redact, redactText } from './redact.js';

test('secret-looking keys and values are redacted; the rest is kept, bounded', () => {
  const out = redact({
    path: '/tmp/x',
    apiKey: 'k',
    password: 'p',
    nested: {
      Authorization: 'Basic abc',
      note: 'Bearer eyJabc.def',
      list: ['ghp_abcdefghijklmnopqrstuvwxyz12', 'plain'],
    },
    openai: 'sk-abcdefghijklmnopqrstu',
    jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
    long: 'y'.repeat(5000),
    count: 3,
  }) as Record<string, unknown>;
  assert.equal(out.path, '/tmp/x');
  assert.equal(out.apiKey, REDACTED);
  assert.equal(out.password, REDACTED);
  assert.deepEqual(out.nested, { Authorization: REDACTED, note: REDACTED, list: [REDACTED, 'plain'] });
  assert.equal(
    redactText('use Bearer abc.def then sk-abcdefghijklmnopqrstu!'),
    `use ${REDACTED} then ${REDACTED}!`,
  );
  assert.equal(out.openai, REDACTED);
  assert.equal(out.jwt, REDACTED);
  assert.ok(typeof out.long === 'string' && out.long.length < 1100);
  assert.equal(out.count, 3);
});

test('depth and width are bounded', () => {
  let deep: unknown = 'bottom';
  for (let i = 0; i < 50; i++) deep = { d: deep };
  assert.ok(JSON.stringify(redact(deep)).length < 200);
  const wide = redact(Array.from({ length: 10_000 }, (_, i) => i)) as unknown[];
  assert.equal(wide.length, 101);
});
