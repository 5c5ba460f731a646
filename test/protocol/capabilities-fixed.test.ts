// Capabilities are fixed when a session initializes: a kind registered later is never offered to sessions already
// open (no list_changed, requests answered as for an undeclared capability), and registering it warns.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { McpServer } from '../../src/server/server.js';
import { rawClient, settle } from './helpers.js';

function server(warnings: string[], capabilities?: McpServer['capabilities']) {
  const s = new McpServer(
    { name: 'fixed', version: '1.0.0' },
    capabilities === undefined
      ? { onwarning: (m) => warnings.push(m) }
      : { capabilities, onwarning: (m) => warnings.push(m) },
  );
  s.tool('t', {}, () => 'ok');
  return s;
}

describe('capabilities fixed at initialize', () => {
  test('a kind registered after a session initialized is not offered to it, and the registration warns', async () => {
    const warnings: string[] = [];
    const s = server(warnings);
    const { raw, init } = await rawClient(s);
    const caps = (init as unknown as { result: { capabilities: Record<string, unknown> } }).result
      .capabilities;
    assert.equal(caps.prompts, undefined);
    assert.equal(caps.completions, undefined);

    s.prompt('p', { arguments: { a: { complete: () => ['x'] } } }, () => 'hi');
    await settle();
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] ?? '',
      /"prompts" and "completions" registered after 1 session\(s\) initialized/,
    );
    assert.match(warnings[0] ?? '', /capabilities/);
    assert.equal(raw.received('notifications/prompts/list_changed').length, 0, 'no list_changed for it');

    const list = await raw.request('prompts/list');
    assert.ok('error' in list && list.error.code === -32601, JSON.stringify(list));
    const complete = await raw.request('completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'a', value: '' },
    });
    assert.ok('error' in complete && complete.error.code === -32601, JSON.stringify(complete));
    // What the session was offered still works, and still hears its own list changes.
    const tools = await raw.request('tools/list');
    assert.ok('result' in tools);
    s.tool('t2', {}, () => 'ok');
    await settle();
    assert.equal(raw.received('notifications/tools/list_changed').length, 1);
    assert.equal(warnings.length, 1, 'a kind already offered does not warn');

    // A session that initializes now is offered the new kind.
    const later = await rawClient(s);
    const laterCaps = (later.init as unknown as { result: { capabilities: Record<string, unknown> } }).result
      .capabilities;
    assert.deepEqual(laterCaps.prompts, { listChanged: true });
    const listed = await later.raw.request('prompts/list');
    assert.ok('result' in listed, JSON.stringify(listed));
    await s.close();
  });

  test('no warning without sessions, nor with capabilities declared up front', async () => {
    const warnings: string[] = [];
    const quiet = server(warnings);
    quiet.prompt('p', {}, () => 'hi');
    quiet.resource('test://r', { name: 'r' }, () => 'r');
    const declared = server(warnings, { tools: {}, prompts: { listChanged: true } });
    await rawClient(declared);
    declared.prompt('p', {}, () => 'hi');
    await settle();
    assert.deepEqual(warnings, []);
    await Promise.all([quiet.close(), declared.close()]);
  });

  test('the default warning goes to console.warn (stderr), never stdout', async (t) => {
    const warn = t.mock.method(console, 'warn', () => {});
    const log = t.mock.method(console, 'log', () => {});
    const s = new McpServer({ name: 'fixed', version: '1.0.0' });
    s.tool('t', {}, () => 'ok');
    await rawClient(s);
    s.resource('test://r', { name: 'r' }, () => 'r');
    assert.equal(warn.mock.callCount(), 1);
    assert.match(
      String(warn.mock.calls[0]?.arguments[0]),
      /^mcpkit server: "resources" registered after 1 session/,
    );
    assert.equal(log.mock.callCount(), 0);
    await s.close();
  });
});
