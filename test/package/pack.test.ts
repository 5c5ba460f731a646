// The package as users get it: `npm pack` of the built tree, installed from the tarball into a fresh project (its
// dependencies from the registry, the npm cache first), where `npx mcpkit --help` runs, the types resolve for
// `import { McpServer } from 'mcpkit'` under a strict tsc, and the root entry serves a tool call. One test: it
// installs once; every step is bounded. The tree must be built (npm test builds it); packing skips the prepack
// build so the dist/ that other tests read is not rewritten meanwhile.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

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

test('npm pack gives a tarball that installs into a fresh project: npx mcpkit, the types, the root entry', {
  timeout: 420_000,
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

    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      '{ "name": "try-mcpkit", "private": true, "type": "module" }\n',
    );
    run(npm, ['install', '--prefer-offline', join(dir, entry.filename)], project, 240_000);

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
