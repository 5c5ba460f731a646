// Library code does not hide type mismatches behind `as unknown as`: the MCP types are assignable to JsonObject,
// and what a peer sends is checked (spec/checks.ts). A cast that must stay says why in a comment on the line above.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

test('no unexplained `as unknown as` cast in src/ (tests excepted)', () => {
  const files = readdirSync(join(root, 'src'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
  assert.ok(files.length > 50, `found ${files.length} source files`);
  const unexplained: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.includes('as unknown as') && !lines[i - 1]?.trim().startsWith('//'))
        unexplained.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(unexplained, []);
});
