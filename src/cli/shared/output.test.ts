import assert from 'node:assert/strict';
import { test } from 'node:test';
import { table, terminalSafe } from './output.js';

test('terminalSafe: C0 and C1 controls go, newline, tab, CRLF and other text stay', () => {
  assert.equal(
    terminalSafe('a\u001b[2J\u001b]0;title\u0007b\r\n\tc\u009b31md\u007f é\rx\r'),
    'a[2J]0;titleb\r\n\tc31md éx',
  );
});

test('table: a cell cannot carry escape sequences, tabs or newlines', () => {
  const text = table(['name', 'description'], [['x\u001b[1A', 'line\none\tand\u001b]0;owned\u0007 more']]);
  assert.equal(terminalSafe(text), text);
  assert.equal(text.split('\n')[2], 'x[1A  line one and]0;owned more');
});
