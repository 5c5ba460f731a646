// A stdio server that breaks the framing: a line over the client's size limit (ended or not) or output that ends in
// the middle of a line. The connection ends at once with that reason: the pending call fails with it (not with
// its timeout, set long here), onclose carries it, and the server process is stopped.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, test } from 'node:test';
import { McpkitError } from '../../src/index.js';
import { deadline, eventually } from './helpers.js';
import { connectStdio, isAlive, killStarted } from './stdio-helpers.js';

const skip = process.platform === 'win32' ? 'stdio process tests run on POSIX' : false;

// A tiny server of the stateful era: answers the handshake, then breaks the framing as the tool's name says:
// `long` answers with a line over the limit, `endless` starts a line over the limit and never ends it,
// `cut` writes half a line and closes its stdout while it keeps running.
const SERVER = `
const { closeSync, writeSync } = require('node:fs');
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  const reply = (body) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...body }) + '\\n');
  if (m.method === 'initialize')
    return reply({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'framing', version: '1' } } });
  if (m.method !== 'tools/call') return m.id === undefined ? undefined : reply({ result: {} });
  const name = m.params.name;
  if (name === 'long') return reply({ result: { content: [{ type: 'text', text: 'x'.repeat(10000) }] } });
  if (name === 'endless') return process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":"' + 'y'.repeat(10000));
  if (name === 'cut') {
    writeSync(1, '{"jsonrpc":"2.0","id":' + m.id + ',"res');
    closeSync(1);
  }
});
rl.on('close', () => process.exit(0));
`;

after(() => killStarted());

async function connect() {
  const closes: (Error | undefined)[] = [];
  const { client, transport } = await connectStdio(
    { onclose: (e) => closes.push(e), onerror: () => {} },
    {},
    { args: ['-e', SERVER], maxMessageBytes: 4096 },
  );
  const pid = transport.pid;
  assert.ok(pid !== undefined);
  return { client, closes, pid };
}

/** Calls `tool` with a long timeout; resolves with the error it fails with, which must be the framing's reason. */
async function brokenCall(tool: string, code: string, message: RegExp): Promise<void> {
  const { client, closes, pid } = await connect();
  const call = client.callTool(tool, {}, { timeout: 600_000 });
  const error = await deadline(
    call.then(
      () => assert.fail('the call succeeded'),
      (e: unknown) => e,
    ),
    `the call to ${tool} to fail`,
    20_000,
  );
  assert.ok(error instanceof McpkitError, String(error));
  assert.equal(error.code, 'CONNECTION_CLOSED', error.message);
  assert.match(error.message, message);
  assert.ok(error.cause instanceof McpkitError);
  assert.equal(error.cause.code, code);
  await eventually(() => closes.length === 1, 'onclose');
  assert.ok(closes[0] instanceof McpkitError);
  assert.equal((closes[0] as McpkitError).code, code);
  await eventually(() => !isAlive(pid), 'the server process to be stopped');
  await client.close();
  assert.equal(closes.length, 1);
}

test('a line over maxMessageBytes ends the connection: the pending call fails with that reason', {
  skip,
}, async () => {
  await brokenCall(
    'long',
    'MESSAGE_TOO_LARGE',
    /The server sent a line over 4096 bytes \(the limit, maxMessageBytes\)/,
  );
});

test('a line that passes the limit without ending fails the call as soon as it does', { skip }, async () => {
  await brokenCall('endless', 'MESSAGE_TOO_LARGE', /over 4096 bytes/);
});

test('output that ends in the middle of a line fails the call when it ends', { skip }, async () => {
  await brokenCall('cut', 'INVALID_MESSAGE', /ended in the middle of a line \(\d+ bytes without a newline\)/);
});
