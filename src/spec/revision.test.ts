import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../jsonrpc/errors.js';
import { POLICIES, policyFor, REVISIONS, statefulPolicy } from './revision.js';

test('revisions are ordered by their place, and compared through it', () => {
  REVISIONS.forEach((r, i) => {
    assert.equal(POLICIES[r].order, i);
    assert.equal(POLICIES[r].version, r);
  });
  assert.ok(POLICIES['2025-06-18'].atLeast('2025-03-26'));
  assert.ok(POLICIES['2025-06-18'].atLeast('2025-06-18'));
  assert.ok(!POLICIES['2025-06-18'].atLeast('2025-11-25'));
  assert.ok(POLICIES['2026-07-28'].atLeast('2024-11-05'));
});

test('lookups: every revision, nothing else; stateful lookups refuse the stateless revision', () => {
  for (const r of REVISIONS) assert.equal(policyFor(r), POLICIES[r]);
  for (const bad of ['2025-01-01', '', undefined, 20250618, '2025-06-18 '])
    assert.equal(policyFor(bad), undefined);
  assert.equal(statefulPolicy('2026-07-28'), undefined);
  assert.equal(statefulPolicy('2025-03-26'), POLICIES['2025-03-26']);
});

test('policies are immutable', () => {
  const p = POLICIES['2025-03-26'];
  assert.ok(Object.isFrozen(p));
  assert.throws(() => {
    (p as { batching: boolean }).batching = false;
  });
});

test('batching is 2025-03-26 only; SSE priming 2025-11-25 only; the envelope 2026-07-28 only', () => {
  const batching = REVISIONS.filter((r) => POLICIES[r].batching);
  assert.deepEqual(batching, ['2025-03-26']);
  assert.deepEqual(
    REVISIONS.filter((r) => POLICIES[r].ssePriming),
    ['2025-11-25'],
  );
  assert.deepEqual(
    REVISIONS.filter((r) => POLICIES[r].metaEnvelope),
    ['2026-07-28'],
  );
  assert.deepEqual(
    REVISIONS.filter((r) => POLICIES[r].era === 'stateless'),
    ['2026-07-28'],
  );
});

test('methods: elicitation from 2025-06-18, the 2026-07-28 removals and additions', () => {
  const has = (m: string) => REVISIONS.filter((r) => POLICIES[r].hasMethod(m));
  assert.deepEqual(has('elicitation/create'), ['2025-06-18', '2025-11-25', '2026-07-28']);
  assert.deepEqual(has('notifications/elicitation/complete'), ['2025-11-25']);
  assert.deepEqual(has('initialize'), ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
  assert.deepEqual(has('resources/subscribe'), ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
  assert.deepEqual(has('server/discover'), ['2026-07-28']);
  assert.deepEqual(has('subscriptions/listen'), ['2026-07-28']);
  assert.deepEqual(has('tools/call'), [...REVISIONS]);
  assert.deepEqual(has('tools/nonsense'), []);
});

test('completion is gated by a capability except in 2024-11-05, which had none', () => {
  assert.deepEqual(
    REVISIONS.filter((r) => !POLICIES[r].completionsCapability),
    ['2024-11-05'],
  );
});

test('resource not found: -32002 in the stateful revisions, -32602 in 2026-07-28, with the uri', () => {
  const stateful = POLICIES['2025-06-18'].resourceNotFound('x://y');
  assert.equal(stateful.code, ErrorCode.ResourceNotFound);
  assert.equal(stateful.code, -32002);
  assert.deepEqual(stateful.data, { uri: 'x://y' });
  const stateless = POLICIES['2026-07-28'].resourceNotFound('x://y');
  assert.equal(stateless.code, -32602);
  assert.deepEqual(stateless.data, { uri: 'x://y' });
});

test('elicitation modes: a declared capability is form before 2025-11-25; `{}` means form from 2025-11-25', () => {
  const modes = (r: keyof typeof POLICIES, elicitation: unknown) =>
    POLICIES[r].elicitationModes(elicitation === undefined ? {} : ({ elicitation } as never));
  assert.deepEqual(modes('2025-03-26', {}), { form: true, url: false });
  assert.deepEqual(modes('2024-11-05', undefined), { form: false, url: false });
  assert.deepEqual(modes('2025-06-18', {}), { form: true, url: false });
  assert.deepEqual(modes('2025-06-18', { url: {} }), { form: true, url: false });
  assert.deepEqual(modes('2025-06-18', undefined), { form: false, url: false });
  for (const r of ['2025-11-25', '2026-07-28'] as const) {
    assert.deepEqual(modes(r, {}), { form: true, url: false });
    assert.deepEqual(modes(r, { form: {} }), { form: true, url: false });
    assert.deepEqual(modes(r, { url: {} }), { form: false, url: true });
    assert.deepEqual(modes(r, { form: {}, url: {} }), { form: true, url: true });
    assert.deepEqual(modes(r, undefined), { form: false, url: false });
  }
  assert.deepEqual(
    REVISIONS.filter((r) => POLICIES[r].elicitationModeField),
    ['2025-11-25', '2026-07-28'],
  );
});
