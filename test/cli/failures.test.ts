// The exit code of each failure class, with what the message must say: a server that does not start (2, its
// stderr tail), an unreachable URL (4), a config file that does not parse (1, file and position), a name no
// config has (1, the nearest one).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EXAMPLE, freePort, json, mcpkit, tempHome } from './helpers.js';

describe('mcpkit: exit codes of failures', { timeout: 300_000 }, () => {
  test('a server that exits at start: exit 2 with the tail of its stderr', async () => {
    const script = "console.error('starting'); console.error('FATAL: no API key set'); process.exit(3)";
    const run = await mcpkit(['tools', '--', process.execPath, '-e', script]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /did not start/);
    assert.match(run.stderr, /--- the server's stderr \(last lines\) ---\nstarting\nFATAL: no API key set/);
    const asJson = await mcpkit(['tools', '--format', 'json', '--', process.execPath, '-e', script]);
    assert.equal(asJson.code, 2);
    assert.equal(asJson.stdout, '');
    const error = JSON.parse(asJson.stderr).error as { kind: string; exitCode: number; stderr: string };
    assert.deepEqual([error.kind, error.exitCode], ['server_failed', 2]);
    assert.match(error.stderr, /FATAL: no API key set/);
  });

  test('a command that does not exist: exit 2', async () => {
    const run = await mcpkit(['ping', '--', '/nonexistent/mcp-server']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /did not start: .*command not found/);
  });

  test('a server that prints garbage and exits: exit 2', async () => {
    const run = await mcpkit(['ping', '--', process.execPath, '-e', "process.stdout.write('hello\\n')"]);
    assert.equal(run.code, 2, run.stderr);
  });

  test('a server that dies in the middle of the command: exit 2', async () => {
    const dir = tempHome();
    const script = join(dir, 'dies.mjs');
    // Answers the handshake of the legacy era, then exits when asked for its tools.
    writeFileSync(
      script,
      [
        "import { createInterface } from 'node:readline';",
        'for await (const line of createInterface({ input: process.stdin })) {',
        '  const m = JSON.parse(line);',
        "  const reply = (body) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...body }) + '\\n');",
        "  if (m.method === 'initialize') reply({ result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'dies', version: '1' } } });",
        "  else if (m.method === 'tools/list') { console.error('crashed on tools/list'); process.exit(7); }",
        "  else if (m.id !== undefined) reply({ error: { code: -32601, message: 'Method not found' } });",
        '}',
      ].join('\n'),
    );
    const run = await mcpkit(['tools', '--era', 'legacy', '--', process.execPath, script]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /exit|closed/i);
  });

  test('an unreachable URL: exit 4 (text and JSON)', async () => {
    const port = await freePort();
    const run = await mcpkit(['tools', `http://127.0.0.1:${port}/mcp`]);
    assert.equal(run.code, 4, run.stderr);
    assert.match(run.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp/);
    const asJson = await mcpkit(['ping', `http://127.0.0.1:${port}/mcp`, '--format', 'json']);
    assert.equal(asJson.code, 4);
    assert.deepEqual(
      [JSON.parse(asJson.stderr).error.kind, JSON.parse(asJson.stderr).error.code],
      ['unreachable', 'TRANSPORT_ERROR'],
    );
  });

  test('a config file that does not parse: exit 1 naming the file, the line and the column', async () => {
    const dir = tempHome();
    const file = join(dir, 'servers.json');
    writeFileSync(file, '{\n  "mcpServers": {\n    "ex": { "command": "node", }\n  \n');
    const run = await mcpkit(['tools', 'ex', '--config', file]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: syntax error: .*\\(line \\d+, column \\d+\\)`,
      ),
    );
    const missing = await mcpkit(['tools', 'ex', '--config', join(dir, 'absent.json')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /absent\.json: cannot read/);
  });

  test('a server name from a config file; a name it lacks: exit 1 with the nearest', async () => {
    const dir = tempHome();
    const file = join(dir, '.mcp.json');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { example: { command: process.execPath, args: [EXAMPLE] } } }),
    );
    const run = await mcpkit(['call', 'example', 'echo', 'text=from config', '--config', file]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'echo: from config\n');
    const typo = await mcpkit(['tools', 'exampel', '--config', file]);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /no server "exampel" .*did you mean "example"/);
  });

  test('a server name found in the known locations (a project .mcp.json in the working directory)', async () => {
    const project = tempHome();
    mkdirSync(join(project, '.vscode'));
    writeFileSync(
      join(project, '.vscode', 'mcp.json'),
      `// VS Code's JSONC\n{ "servers": { "ex": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EXAMPLE)}], }, }, }`,
    );
    const home = tempHome();
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    // A project file is not the person's: without a terminal to ask on, it is skipped unless --trust-project.
    const skipped = await mcpkit(['discover', 'ex', '--format', 'json'], { cwd: project, env });
    assert.equal(skipped.code, 1);
    assert.match(skipped.stderr, /project file not trusted yet: its servers \(ex\) are skipped/);
    const run = await mcpkit(['discover', 'ex', '--format', 'json', '--trust-project'], {
      cwd: project,
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(json<{ serverInfo: { name: string } }>(run).serverInfo.name, 'mcpkit-everything');
  });

  test('-e and --cwd reach a stdio server', async () => {
    const dir = tempHome();
    const script = join(dir, 'env-server.mjs');
    // A "server" that reports its working directory and a variable on stderr and exits: the exit-2 message
    // shows that stderr, so what the child was given is seen from outside.
    writeFileSync(
      script,
      'console.error("cwd=" + process.cwd() + " GREETING=" + process.env.GREETING); process.exit(1);\n',
    );
    const run = await mcpkit(['ping', '-e', 'GREETING=hej', '--cwd', dir, '--', process.execPath, script]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`cwd=${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} GREETING=hej`));
  });
});
