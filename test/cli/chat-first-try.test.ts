// `mcpkit chat` as a first try finds it (issue 25): no model server running is said at once, with its cause and how to
// run one, before any MCP server is started; an approval answer that is none of the choices is asked again.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { askApproval } from '../../src/cli/commands/chat/ask.js';
import { Lines } from '../../src/cli/shared/terminal.js';
import type { ApprovalRequest } from '../../src/host/approval.js';
import { freePort, mcpkit } from './helpers.js';

test('no model server: the cause (ECONNREFUSED host:port) and how to run one, before any server starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-chat-first-'));
  const marker = join(dir, 'started');
  const config = join(dir, 'mcpkit.json');
  // A server whose only act is to leave a mark: it must not be started for a chat that cannot talk to its model.
  const mark = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`;
  writeFileSync(
    config,
    JSON.stringify({ servers: { marker: { command: process.execPath, args: ['-e', mark] } } }),
  );
  const port = await freePort(); // closed again: nothing listens there
  const run = await mcpkit(['chat', '--config', config, '--model', 'ollama:llama3.2'], {
    env: { OLLAMA_HOST: `127.0.0.1:${port}` },
    input: 'hello\n',
  });
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
  assert.match(run.stderr, /ollama serve/);
  assert.match(run.stderr, /OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:PORT\/v1/);
  assert.equal(existsSync(marker), false, 'a server was started before the model was checked');
  // The help says it too.
  const help = await mcpkit(['chat', '--help']);
  assert.match(help.stdout, /ollama serve/);
});

const REQUEST: ApprovalRequest = {
  server: 'files',
  tool: 'delete',
  qualifiedName: 'files__delete',
  annotations: undefined,
  arguments: { path: '/tmp/x' },
  trusted: false,
};

/** The decision for the answers typed (one a line), and what was said meanwhile on stderr. */
async function decide(typed: string): Promise<{ decision: string; said: string }> {
  const input = new PassThrough();
  const lines = new Lines(input, new PassThrough());
  input.end(typed);
  const said: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    said.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    return { decision: await askApproval(lines, REQUEST), said: said.join('') };
  } finally {
    process.stderr.write = write;
    lines.close();
  }
}

test('an approval answer that is none of the choices is asked again, not taken as a denial', async () => {
  const typo = await decide('oce\n\nonce\n');
  assert.equal(typo.decision, 'allow-once');
  assert.match(typo.said, /"oce" is not an answer: type o, s or d/);
  assert.match(typo.said, /no answer: type o, s or d/);
  assert.equal((await decide('x\ns\n')).decision, 'allow-session');
  assert.equal((await decide('d\n')).decision, 'deny');
  // The end of input: nobody left to ask.
  assert.equal((await decide('what?\n')).decision, 'deny');
});
