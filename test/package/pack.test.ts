// The package as users get it: `npm pack` of the built tree, installed from the tarball into a fresh project exactly
// as the README's install section says (its shell block run as written, the tarball where the README puts it; the
// dependencies from the registry, the npm cache first), where the README's quick start runs and prints what the README
// shows, `npx mcpkit --help` runs, the types resolve for `import { McpServer } from 'mcpkit'` under a strict tsc, and
// the root entry serves a tool call. One test: it installs once; every step is bounded. The tree must be built (npm
// test builds it); packing skips the prepack build so the dist/ that other tests read is not rewritten meanwhile.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { normalize } from '../docs/check.js';
import { codeBlocks } from '../docs/markdown.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command to its end within `timeoutMs`; fails the test with its output when it does not succeed. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: {
      ...process.env,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      // The README's commands as written, served from the npm cache where it has them.
      npm_config_prefer_offline: 'true',
      // The node that runs the test is the one a command started by name (npx, a shebang) runs, as for a user.
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    },
  });
  const what = `${command} ${args.join(' ')} (in ${cwd})`;
  assert.equal(r.error, undefined, `${what}: ${r.error?.message}`);
  assert.equal(r.status, 0, `${what} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const USER_FILE = `import { type CallToolResult, Client, McpServer } from 'mcpkit';
import { connectInMemory } from 'mcpkit/testing';

const server = new McpServer({ name: 'packed', version: '1.0.0' });
server.tool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' } } } }, (args) => String(args.a));
const { client } = await connectInMemory(server);
const result: CallToolResult = await client.callTool('add', { a: 2 });
// @ts-expect-error content is an array of blocks, not a string: the types are real, not any
const wrong: string = result.content;
console.log(client instanceof Client, wrong === undefined);
`;

const RUNTIME_FILE = `import { McpServer } from 'mcpkit';
import { connectInMemory } from 'mcpkit/testing';
const server = new McpServer({ name: 'packed', version: '1.0.0' });
server.tool('echo', {}, () => 'from the tarball');
const { client } = await connectInMemory(server);
const result = await client.callTool('echo');
console.log(JSON.stringify(result));
await client.close();
`;

test('npm pack gives a tarball that installs as the README says, runs its quick start, npx mcpkit, the types, the root entry', {
  timeout: 600_000,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-pack-'));
  try {
    const packed = JSON.parse(
      run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root, 120_000),
    ) as { filename: string; files: { path: string }[] }[];
    const entry = packed[0];
    assert.ok(entry, 'npm pack reported its tarball');
    const files = entry.files.map((f) => f.path);
    for (const expected of ['LICENSE', 'CHANGELOG.md', 'README.md', 'package.json', 'dist/pkg/cli.js']) {
      assert.ok(files.includes(expected), `the tarball has ${expected}`);
    }
    assert.deepEqual(
      files.filter((f) => f.includes('.test.') || f.startsWith('src/') || f.startsWith('test/')),
      [],
    );

    // The README's install section, as written: its clone step made the tarball beside the project folder.
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const blocks = codeBlocks(readme);
    const install = blocks.find((b) => b.lang === 'sh' && b.text.includes('npm init -y'));
    assert.ok(install, 'the README has the shell block that makes a project');
    assert.ok(
      install.text.includes(`../mcpkit/${entry.filename}`),
      `the README installs the tarball npm pack writes (${entry.filename})`,
    );
    mkdirSync(join(dir, 'mcpkit'));
    renameSync(join(dir, entry.filename), join(dir, 'mcpkit', entry.filename));
    run('sh', ['-e', '-c', install.text], dir, 300_000);
    const project = join(dir, install.text.match(/^mkdir (\S+)/m)?.[1] ?? 'missing');

    // The quick start: the server and the client as the README shows them, run the way the README says.
    const file = (name: string) => blocks.find((b) => b.file === name);
    const server = file('server.ts');
    const client = file('client.ts');
    assert.ok(server && client, 'the README has server.ts and client.ts');
    writeFileSync(join(project, 'server.ts'), server.text);
    writeFileSync(join(project, 'client.ts'), client.text);
    const expected = blocks[blocks.indexOf(client) + 1];
    assert.equal(expected?.lang, 'text', 'the client is followed by its output');
    let printed: string;
    if ((process.features as { typescript?: string }).typescript) {
      assert.match(readme, /`node client\.ts`/);
      printed = run(process.execPath, ['client.ts'], project, 120_000);
    } else {
      // Node 20: the README's own line for it.
      assert.match(readme, /`npm install --save-dev tsx` once, then `npx tsx client\.ts`/);
      run(npm, ['install', '--save-dev', 'tsx'], project, 240_000);
      printed = run(npm, ['exec', '--', 'tsx', 'client.ts'], project, 120_000);
    }
    assert.equal(normalize(printed), normalize(expected.text));

    // The installed package.json carries no install-time script (npm would warn consumers about it).
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/mcpkit/package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
      assert.equal(installed.scripts?.[hook], undefined, `the published package has no ${hook} script`);
    }

    const help = run(npm, ['exec', '--offline', '--', 'mcpkit', '--help'], project, 60_000);
    assert.match(help, /^Usage: mcpkit/m);

    writeFileSync(join(project, 'main.ts'), USER_FILE);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          lib: ['ES2023', 'DOM'],
          types: [],
        },
        files: ['main.ts'],
      }),
    );
    run(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], project, 60_000);

    writeFileSync(join(project, 'run.mjs'), RUNTIME_FILE);
    const out = run(process.execPath, ['run.mjs'], project, 30_000);
    assert.deepEqual(JSON.parse(out), { content: [{ type: 'text', text: 'from the tarball' }] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
