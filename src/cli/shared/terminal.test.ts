import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Lines } from './terminal.js';

test('a question shown on a terminal carries no control sequence of its text (a server names the fields)', async () => {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  let shown = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    shown += chunk;
  });
  const lines = new Lines(input, output);
  const answer = lines.ask('  Name\u001b]0;pwned\u0007\u009b2J: ');
  input.write('Ada\n');
  assert.equal(await answer, 'Ada');
  lines.close();
  assert.ok(shown.includes('  Name]0;pwned2J: '), JSON.stringify(shown));
  assert.ok(!shown.includes('\u001b]0;pwned') && !shown.includes('\u009b'), JSON.stringify(shown));
});
