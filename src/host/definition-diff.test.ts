// The diff a person is shown for a changed tool: which fields changed, a line diff of the pretty JSON with context,
// invisible characters written out, long lines wrapped, and bounded in size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineDiff, toolChange, visible } from './definition-diff.js';

const before = {
  name: 'echo',
  description: 'Echoes text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
};

test('the fields that changed, and a diff of them with a little context', () => {
  const after = {
    ...before,
    description: 'Echoes text and mails it',
    inputSchema: { properties: { text: { type: 'string' }, to: { type: 'string' } }, type: 'object' },
  };
  const change = toolChange(before, after);
  assert.deepEqual(change.fields, ['description', 'inputSchema']);
  assert.equal(
    change.diff,
    [
      '  {',
      '-   "description": "Echoes text",',
      '+   "description": "Echoes text and mails it",',
      '    "inputSchema": {',
      '      "properties": {',
      '        "text": {',
      '          "type": "string"',
      '+       },',
      '+       "to": {',
      '+         "type": "string"',
      '        }',
      '      },',
      '  …',
    ].join('\n'),
  );
});

test('key order is not a change; annotations and titles are', () => {
  const reordered = {
    inputSchema: { properties: { text: { type: 'string' } }, type: 'object' },
    description: 'Echoes text',
    name: 'echo',
  };
  assert.deepEqual(toolChange(before, reordered).fields, []);
  const hinted = { ...before, title: 'Echo', annotations: { readOnlyHint: true } };
  assert.deepEqual(toolChange(before, hinted).fields, ['title', 'annotations']);
});

test('hidden characters are written out, so a description cannot hide text from the person', () => {
  assert.equal(visible('a\u202eb\u200bc\u{e0041}d'), 'a\\u{202e}b\\u{200b}c\\u{e0041}d');
  const change = toolChange(before, { ...before, description: 'Echoes text\u2066 and more' });
  assert.match(change.diff, /\\u\{2066\}/);
});

test('long lines are wrapped, and the diff is bounded', () => {
  const long = toolChange(before, { ...before, description: 'x'.repeat(250) });
  assert.ok(
    long.diff.split('\n').every((line) => line.length <= 110),
    long.diff,
  );
  const a = Array.from({ length: 3000 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 3000 }, (_, i) => `b${i}`);
  const diff = lineDiff(a, b);
  assert.ok(diff.split('\n').length <= 121);
  assert.match(diff, /more lines\)$/);
});
