// `npm run cluster` (examples/cluster/main.js) as a user runs it: it prints the Streamable HTTP endpoint and the
// legacy HTTP+SSE one behind nginx, both answer (the legacy client's POSTs go through nginx to any instance), and
// SIGINT stops every process it started (redis-server, the instances, nginx) and exits 0. The scaling guide's nginx
// snippet (docs/scaling.md) has the directives the command writes, and nothing else.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nginxConfig } from '../../examples/cluster/topology.js';
import { Client } from '../../src/client/client.js';
import { SseLegacyClientTransport } from '../../src/transport/http-client/legacy-sse.js';
import { StreamableHttpClientTransport } from '../../src/transport/http-client/streamable.js';

const MAIN = fileURLToPath(new URL('../../examples/cluster/main.js', import.meta.url));
const GUIDE = fileURLToPath(new URL('../../../docs/scaling.md', import.meta.url));

/** The directives of an nginx text: one a line, comments and block braces dropped, `listen` left out (it differs). */
function directives(text: string): Set<string> {
  const lines = text.split('\n').map((line) => line.replace(/#.*/, '').trim());
  return new Set(lines.filter((line) => line.endsWith(';') && !line.startsWith('listen ')));
}

test('the scaling guide’s nginx snippet has the directives npm run cluster writes for its proxy', () => {
  const snippet = /```nginx\n([\s\S]*?)```/.exec(readFileSync(GUIDE, 'utf8'))?.[1];
  assert.ok(snippet, 'docs/scaling.md has an nginx snippet');
  const written = nginxConfig('/tmp/x', 8080, [3001, 3002, 3003]);
  const proxy = written.slice(written.indexOf('upstream mcpkit'));
  assert.deepEqual([...directives(snippet)].sort(), [...directives(proxy)].sort());
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('npm run cluster prints both endpoints, both serve, and Ctrl-C stops everything', {
  timeout: 90_000,
}, async () => {
  const child = spawn(process.execPath, [MAIN, '--instances', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('Ctrl-C stops everything.')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before it was ready: ${err}`)));
    });
    const url = /mcpkit cluster: (\S+)/.exec(out)?.[1];
    const sseUrl = /legacy HTTP\+SSE \(2024-11-05\): (\S+)/.exec(out)?.[1];
    if (url === undefined || sseUrl === undefined) assert.fail(`both endpoints are printed:\n${out}`);
    assert.ok(url.endsWith('/mcp'), out);
    assert.ok(sseUrl.endsWith('/sse'), out);
    assert.equal(new URL(sseUrl).host, new URL(url).host, 'behind nginx too');
    const pids = [...out.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
    assert.equal(pids.length, 2);

    const legacy = new Client({ name: 'legacy', version: '1' }, { era: 'stateful' });
    await legacy.connect(new SseLegacyClientTransport(sseUrl));
    const modern = new Client({ name: 'modern', version: '1' });
    await modern.connect(new StreamableHttpClientTransport(url));
    try {
      for (let n = 0; n < 4; n++) {
        const answer = await legacy.callTool('cluster_instance', {});
        assert.equal(answer.content[0]?.type, 'text');
      }
      assert.ok((await modern.listTools()).some((t) => t.name === 'cluster_task'));
    } finally {
      await legacy.close();
      await modern.close();
    }

    assert.ok(child.pid !== undefined && process.kill(child.pid, 'SIGINT'));
    assert.equal(await exited, 0);
    for (const pid of pids) assert.equal(alive(pid), false, `instance ${pid} stopped`);
  } finally {
    // After a failure: the command's own shutdown stops what it started; SIGKILL only if it does not end.
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, 'SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
  }
});
