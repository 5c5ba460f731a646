// A header the person gives by hand reaches the server: `--header "Authorization: Bearer …"` on a URL target with no
// stored token was dropped by the token file's authorizer (it sent none), so the server refused the request.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { guardedServer } from './guarded-server.js';
import { mcpkit } from './helpers.js';

const closes: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closes) await close();
});

test('mcpkit tools URL --header "Authorization: Bearer T" is let in by a server wanting that header', async () => {
  const guarded = await guardedServer('s3cret');
  closes.push(guarded.close);
  const run = await mcpkit(['tools', guarded.url, '--header', 'Authorization: Bearer s3cret']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /whoami/);
  const refused = await mcpkit(['tools', guarded.url, '--header', 'Authorization: Bearer wrong']);
  assert.notEqual(refused.code, 0);
});
