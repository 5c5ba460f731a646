// Every command against the official reference server, @modelcontextprotocol/server-everything, over stdio.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { json, mcpkit, OFFICIAL_STDIO, type Run } from './helpers.js';

function ok(r: Run): Run {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

const run = (command: string, words: string[] = []) => mcpkit([command, ...words, ...OFFICIAL_STDIO]);

describe('mcpkit against @modelcontextprotocol/server-everything (stdio)', { timeout: 600_000 }, () => {
  test('discover: a legacy-era server, its info, capabilities and instructions', async () => {
    const info = json<{
      era: string;
      protocolVersion: string;
      serverInfo: { name: string };
      instructions?: string;
    }>(ok(await run('discover', ['--format', 'json'])));
    assert.equal(info.era, 'legacy');
    assert.equal(info.protocolVersion, '2025-11-25');
    assert.equal(info.serverInfo.name, 'mcp-servers/everything');
    assert.match(info.instructions ?? '', /Everything Server/);
    assert.match(ok(await run('discover')).stdout, /^era\s+legacy \(stateful\)$/m);
  });

  test('tools, resources, templates and prompts', async () => {
    assert.match(ok(await run('tools')).stdout, /^echo\s+message:string\s+Echoes back the input string$/m);
    assert.match(ok(await run('resources')).stdout, /^demo:\/\/resource\/static\/document\//m);
    assert.match(ok(await run('templates')).stdout, /^demo:\/\/resource\/dynamic\/text\/\{resourceId\}/m);
    assert.match(ok(await run('prompts')).stdout, /^args-prompt\s+city \[state\]/m);
  });

  test('call with coerced numbers, progress lines, and a schema misfit', async () => {
    assert.equal(ok(await run('call', ['echo', 'message=hi'])).stdout, 'Echo: hi\n');
    assert.match(ok(await run('call', ['get-sum', 'a=2', 'b=3'])).stdout, /The sum of 2 and 3 is 5\./);
    const long = ok(await run('call', ['trigger-long-running-operation', 'duration=1', 'steps=2']));
    assert.match(long.stderr, /^progress 1\/2$/m);
    assert.match(long.stderr, /^progress 2\/2$/m);
    const bad = await run('call', ['get-sum', 'a=2', 'b=three']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /argument "b": expected a number, got "three"/);
    const json_ = json<{ content: { type: string; text: string }[] }>(
      ok(await run('call', ['echo', 'message=x', '--format', 'json'])),
    );
    assert.equal(json_.content[0]?.text, 'Echo: x');
  });

  test('read, prompt, complete and ping', async () => {
    assert.match(ok(await run('read', ['demo://resource/dynamic/text/1'])).stdout, /Resource 1/);
    assert.match(ok(await run('prompt', ['args-prompt', 'city=Paris'])).stdout, /^user: .*Paris/m);
    const completion = ok(
      await run('complete', ['--prompt', 'completable-prompt', 'department', 'E']),
    ).stdout;
    assert.match(completion, /Engineering/);
    assert.match(ok(await run('ping')).stdout, /^ok \(/);
  });
});
