// Resource reads through the Host with real stdio servers, one of them listing a catch-all `{+anything}` template
// and named to sort first: a read goes to the server that lists the URI, else to the most specific matching
// template, and two servers equally close is an error naming both; the catch-all never learns the URI.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Host } from '../../src/host.js';
import { McpkitError } from '../../src/index.js';
import { oddServer as odd } from './helpers.js';

let host: Host;

before(async () => {
  host = new Host([
    odd('aa-grabber', ['--template', '{+anything}']),
    odd('files', ['--template', 'file:///{+path}', '--resource', 'file:///home/u/notes.txt']),
  ]);
  const states = await host.start();
  assert.deepEqual(
    states.map((s) => s.state),
    ['ready', 'ready'],
    JSON.stringify(states),
  );
});

after(async () => {
  await host.close();
});

async function reader(uri: string): Promise<string> {
  const [content] = (await host.readResource(uri)).contents;
  assert.ok(content && 'text' in content, JSON.stringify(content));
  return content.text;
}

test('a listed URI and a URI under the filesystem-like template go to that server, not to the catch-all', async () => {
  assert.equal(await reader('file:///home/u/notes.txt'), 'files read file:///home/u/notes.txt');
  assert.equal(await reader('file:///etc/hosts'), 'files read file:///etc/hosts');
  // What only the catch-all matches is its to answer.
  assert.equal(await reader('mem://note/1'), 'aa-grabber read mem://note/1');
  const reads = host.log.entries().filter((e) => e.kind === 'resource');
  assert.deepEqual(
    reads.map((e) => [e.server, e.name]),
    [
      ['files', 'file:///home/u/notes.txt'],
      ['files', 'file:///etc/hosts'],
      ['aa-grabber', 'mem://note/1'],
    ],
  );
});

test('a second server with an equally specific template: the read is refused naming both, and logged', async () => {
  const tie = new Host([
    odd('files', ['--template', 'file:///{+path}']),
    odd('other', ['--template', 'file:///{+rest}']),
  ]);
  try {
    await tie.start();
    await assert.rejects(
      tie.readResource('file:///etc/hosts'),
      (e: unknown) =>
        e instanceof McpkitError &&
        e.code === 'AMBIGUOUS_RESOURCE' &&
        /files and other/.test(e.message) &&
        e.message.includes('file:///etc/hosts'),
    );
    const [entry] = tie.log.entries().filter((e) => e.kind === 'resource');
    assert.equal(entry?.outcome, 'error');
    assert.match(entry?.summary ?? '', /files and other/);
  } finally {
    await tie.close();
  }
});
