// Every command against our example server over Streamable HTTP (`server.js --http PORT`), and the legacy
// HTTP+SSE endpoint reached through the fallback.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { everyCommand } from './every-command.js';
import { json, mcpkit, startExampleHttp } from './helpers.js';

describe('mcpkit against the example server over HTTP', { timeout: 600_000 }, () => {
  let child: ChildProcess | undefined;
  let url = '';
  before(async () => {
    ({ child, url } = await startExampleHttp());
  });
  after(() => {
    child?.kill('SIGTERM');
  });

  everyCommand(() => ({ before: [url], after: [] }), true);

  test('the legacy HTTP+SSE endpoint (/sse) through the fallback', async () => {
    const sse = url.replace(/\/mcp$/, '/sse');
    const run = await mcpkit(['discover', sse, '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(json<{ era: string }>(run).era, 'legacy');
    const call = await mcpkit(['call', sse, 'echo', 'text=over sse']);
    assert.equal(call.stdout, 'echo: over sse\n', call.stderr);
  });

  test('--header is sent with every request', async () => {
    const run = await mcpkit(['ping', url, '--header', 'X-Trace: abc', '--header', 'X-Other: 1']);
    assert.equal(run.code, 0, run.stderr);
  });
});
