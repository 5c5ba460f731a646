// A stdio server that answers with a line over the framing's limit (16 MiB), or whose output ends in the middle of
// a line: the command ends by itself (its --timeout is ten minutes here) with the reason on stderr and exit 2, the
// server having failed, instead of waiting for the request's timeout.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mcpkit, tempHome } from './helpers.js';

// Answers the handshake of the legacy era, then breaks the framing when asked for its tools.
const SERVER = [
  "import { closeSync, writeSync } from 'node:fs';",
  "import { createInterface } from 'node:readline';",
  'const mode = process.argv[2];',
  'for await (const line of createInterface({ input: process.stdin })) {',
  '  const m = JSON.parse(line);',
  "  const reply = (body) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...body }) + '\\n');",
  "  if (m.method === 'initialize') reply({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'framing', version: '1' } } });",
  "  else if (m.method === 'tools/list' && mode === 'cut') {",
  '    writeSync(1, \'{"jsonrpc":"2.0","id":\' + m.id + \',"res\');',
  '    closeSync(1);',
  "  } else if (m.method === 'tools/list') {",
  "    reply({ result: { tools: [{ name: 'big', description: 'y'.repeat(17 * 1024 * 1024), inputSchema: { type: 'object' } }] } });",
  "  } else if (m.id !== undefined) reply({ error: { code: -32601, message: 'Method not found' } });",
  '}',
].join('\n');

describe('mcpkit: a stdio server that breaks the framing', { timeout: 300_000 }, () => {
  const script = join(tempHome(), 'framing.mjs');
  writeFileSync(script, SERVER);
  const run = (mode: string) =>
    mcpkit(['tools', '--era', 'legacy', '--timeout', '600000', '--', process.execPath, script, mode]);

  test('a line over 16 MiB: exit 2 with the reason, not a timeout', async () => {
    const result = await run('long');
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /The server sent a line over 16777216 bytes/);
    assert.doesNotMatch(result.stderr, /timed out/i);
  });

  test('output ending in the middle of a line: exit 2 with the reason, not a timeout', async () => {
    const result = await run('cut');
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /The server's output ended in the middle of a line \(\d+ bytes without a newline\)/,
    );
    assert.doesNotMatch(result.stderr, /timed out/i);
  });
});
