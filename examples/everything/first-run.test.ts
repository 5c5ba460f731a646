// What a newcomer sees first (issue 25): `npm start`'s demo and `npm run example:client`, run as real processes.
// The demo warns of nothing it caused itself, says how many of the host's tools it lists, and cuts text between
// words; the example client calls only tools the server's schemas take, and says a list change once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { truncate } from './format.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(here, '../../..');
const OFFICIAL_EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Runs `script` with `args` to its end (bounded), its output and exit code. */
function run(
  script: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, script), ...args], { cwd: ROOT, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not end within 120 s:\n${stdout}\n${stderr}`));
    }, 120_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('truncate', () => {
  it('cuts between words, with an ellipsis', () => {
    const text =
      'The call to beta__echo was not run: the approval policy denies this tool. Do not try it again.';
    const cut = truncate(text, 80);
    assert.ok(cut.length <= 80, cut);
    assert.equal(cut, 'The call to beta__echo was not run: the approval policy denies this tool. Do…');
    // One long word (base64, a URL) is still cut where it must be.
    assert.equal(truncate('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
    assert.equal(truncate('short', 10), 'short');
  });
});

describe('npm start: the demo', { timeout: 180_000 }, () => {
  it('warns of nothing it caused, and says how many of the tools it lists', async () => {
    const demo = await run('demo.js', []);
    assert.equal(demo.code, 0, demo.stderr);
    // Two servers offering the same resources made the host warn once per resource.
    assert.doesNotMatch(demo.stdout, /warning/i);
    const m =
      /Host registry: (\d+) tools under qualified names, (\d+) of them shown ={3,}\n((?: {2}\S.*\n)+)/.exec(
        demo.stdout,
      );
    assert.ok(m, demo.stdout);
    assert.equal(m[3]?.trimEnd().split('\n').length, Number(m[2]));
    assert.ok(Number(m[1]) > Number(m[2]));
  });
});

describe('npm run example:client', { timeout: 180_000 }, () => {
  it('calls only the tools a server offers with the arguments its schemas take, and says a list change once', async () => {
    // The official example server: its echo takes `message`, not `text`; it says its list changed four times.
    const client = await run('client.js', [process.execPath, OFFICIAL_EVERYTHING, 'stdio']);
    assert.equal(client.code, 0, client.stderr);
    assert.doesNotMatch(client.stdout, /call echo \{"text"/);
    assert.doesNotMatch(client.stdout, /Invalid arguments/);
    assert.match(client.stdout, /call \S+ \{\} \(it needs no argument;/);
    assert.ok((client.stdout.match(/tool list changed/g) ?? []).length <= 1, client.stdout);
    // Our example server: the tools the client knows, with their arguments.
    const ours = await run('client.js', [process.execPath, join(here, 'server.js')]);
    assert.equal(ours.code, 0, ours.stderr);
    assert.match(ours.stdout, /call echo \{"text":"hello from the example client"\}\n {4}text: echo: hello/);
  });
});
