import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('the README shows the compiled tour examples verbatim', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  for (const file of [
    'examples/readme/server.ts',
    'examples/readme/client.ts',
    'examples/readme/http.ts',
    'examples/readme/compose.ts',
  ]) {
    assert.ok(readme.includes(readFileSync(join(root, file), 'utf8')), `README.md contains ${file}`);
  }
});
