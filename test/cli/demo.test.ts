// `npm start`'s demo ends with the equivalent `mcpkit` commands; each one printed runs, exit 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { collect, mcpkit, ROOT } from './helpers.js';

test('the demo prints the mcpkit commands it is equivalent to, and each of them works', {
  timeout: 600_000,
}, async () => {
  const demo = spawn(process.execPath, [join(ROOT, 'dist/examples/everything/demo.js')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const run = await collect(demo, undefined, 300_000);
  assert.equal(run.code, 0, run.stderr);
  const tail = run.stdout.slice(run.stdout.indexOf('The same from the command line: mcpkit'));
  const commands = [...tail.matchAll(/^ {4}mcpkit (.+?)(?:\s+#.*)?$/gm)].map((m) => m[1] as string);
  assert.ok(commands.length >= 10, tail);
  for (const line of commands) {
    const words = line.split(' ');
    const result = await mcpkit(words);
    assert.equal(result.code, 0, `mcpkit ${line}\n${result.stderr}`);
    assert.notEqual(result.stdout, '', line);
  }
});
