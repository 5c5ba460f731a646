// `mcpkit gateway` with an ordinary Claude Desktop config (no approval policy: every tool asks) and a client that
// cannot elicit (the official SDK 1.x client, over stdio): each call used to be refused with "the user denied it",
// which is not what happened. The refusal now names the real reason (no one could be asked) and the remedy (the
// person's own config, or `--default-approval allow`), and `--default-approval allow` lets the calls run.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EXAMPLE, MCPKIT, mcpkit, tempHome } from './helpers.js';

/** A Claude Desktop config (its own file name and format) with the example server and nothing else. */
function desktopConfig(): string {
  const file = join(tempHome(), 'claude_desktop_config.json');
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EXAMPLE] } } }),
  );
  return file;
}

/** Calls `everything__echo` through `mcpkit gateway --config FILE extra…` with the official client; its text. */
async function callThroughGateway(extra: readonly string[]): Promise<{ isError: boolean; text: string }> {
  const client = new SdkClient({ name: 'no-elicitation', version: '1.0.0' });
  await client.connect(
    new SdkStdioClientTransport({
      command: process.execPath,
      args: [MCPKIT, 'gateway', '--config', desktopConfig(), ...extra],
      env: { ...process.env, XDG_CONFIG_HOME: tempHome() } as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  try {
    const result = (await client.callTool({ name: 'everything__echo', arguments: { text: 'hi' } })) as {
      isError?: boolean;
      content: { type: string; text?: string }[];
    };
    return { isError: result.isError === true, text: result.content.map((c) => c.text ?? '').join('\n') };
  } finally {
    await client.close();
  }
}

test('a client that cannot elicit: the refusal says no one could be asked, and how to allow the tool', async () => {
  const refused = await callThroughGateway([]);
  assert.equal(refused.isError, true);
  assert.doesNotMatch(refused.text, /the user denied it/);
  assert.equal(
    refused.text,
    'The call to everything__echo was not run: it needs the user\'s approval, and no one could be asked: the connecting client cannot ask its user (it does not support elicitation) and no approval policy allows this tool (to allow it, in your own mcpkit.json: "servers": {"everything":{"approval":{"tools":{"echo":"allow"}}}} (or "default": "allow" for every tool of the server), or "host": {"defaultApproval": "allow"}; a project file cannot allow tools; or start the gateway with --default-approval allow; or connect with a client that supports elicitation). Do not retry it unless the user asks.',
  );
});

test('--default-approval allow: the same call runs; a bad mode is exit 1', async () => {
  assert.deepEqual(await callThroughGateway(['--default-approval', 'allow']), {
    isError: false,
    text: 'echo: hi',
  });
  const bad = await mcpkit(['gateway', '--config', desktopConfig(), '--default-approval', 'yes']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--default-approval must be "allow", "deny" or "ask", got "yes"/);
});
