// Servers asking the host: sampling through the person's review (edit the request, edit the answer, decline) to the
// host's model, elicitation to the app's form, roots from the workspace folders with changes announced; each
// sampling round and elicitation recorded in the activity log. Against the official SDK server and our example.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Host, type ServerConfig } from '../../src/host.js';
import type { CreateMessageParams } from '../../src/index.js';
import { EXAMPLE_SERVER, OFFICIAL_SERVER, text } from './helpers.js';

function node(name: string, script: string): ServerConfig {
  return {
    name,
    transport: { type: 'stdio', command: process.execPath, args: [script], env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    source: { file: 'test', format: 'mcpkit' },
  };
}

const seen: CreateMessageParams[] = [];
let declineNext = false;
let host: Host;

before(async () => {
  host = new Host([node('official', OFFICIAL_SERVER), node('example', EXAMPLE_SERVER)], {
    defaultApproval: 'allow',
    roots: [{ uri: 'file:///work/project', name: 'project' }],
    sampling: (params) => {
      seen.push(params);
      const last = params.messages[params.messages.length - 1];
      const asked =
        last && !Array.isArray(last.content) && last.content.type === 'text' ? last.content.text : '?';
      return {
        role: 'assistant',
        content: { type: 'text', text: `model says: ${asked}` },
        model: 'stand-in',
      };
    },
    reviewSampling: (review) => {
      if (declineNext) return { approve: false, reason: 'not now' };
      if (!review.result) {
        // The person edits the request before it goes to the model.
        const edited = structuredClone(review.params);
        const first = edited.messages[0];
        if (first && !Array.isArray(first.content) && first.content.type === 'text')
          first.content.text += ' (edited)';
        return { approve: true, params: edited };
      }
      return { approve: true };
    },
    elicitation: (params) =>
      params.mode === 'url' ? { action: 'decline' } : { action: 'accept', content: { name: 'Ada', age: 36 } },
  });
  await host.start();
});

after(async () => {
  await host.close();
});

test('sampling: reviewed, edited, answered by the host model, logged', async () => {
  const result = await host.callTool('official__ask_sampling', { prompt: 'pick a flight' });
  assert.match(text(result), /model says: pick a flight \(edited\)/);
  assert.equal(seen.length, 1);
  const entry = host.log.entries().find((e) => e.kind === 'sampling');
  assert.equal(entry?.server, 'official');
  assert.equal(entry?.outcome, 'ok');
  assert.match(entry?.summary ?? '', /pick a flight.*model says/);
});

test('sampling declined by the person: the server hears a rejection, the log says denied', async () => {
  declineNext = true;
  try {
    const result = await host.callTool('official__ask_sampling', { prompt: 'book it' });
    assert.equal(result.isError, true, JSON.stringify(result));
  } finally {
    declineNext = false;
  }
  assert.equal(seen.length, 1, 'the model was not asked');
  const entry = host.log
    .entries()
    .filter((e) => e.kind === 'sampling')
    .at(-1);
  assert.equal(entry?.outcome, 'denied');
  assert.match(entry?.summary ?? '', /not now/);
});

test('elicitation goes to the app form; the answer reaches the server and the log', async () => {
  const result = await host.callTool('official__ask_elicitation', {});
  assert.deepEqual(JSON.parse(text(result)), { action: 'accept', content: { name: 'Ada', age: 36 } });
  const entry = host.log.entries().find((e) => e.kind === 'elicitation');
  assert.deepEqual([entry?.server, entry?.name, entry?.outcome], ['official', 'form', 'accept']);
});

test('roots are the workspace folders; a change is announced and seen', async () => {
  assert.match(text(await host.callTool('example__roots', {})), /project: file:\/\/\/work\/project/);
  await host.setRoots([{ uri: 'file:///work/other', name: 'other' }]);
  assert.match(text(await host.callTool('example__roots', {})), /other: file:\/\/\/work\/other/);
});
