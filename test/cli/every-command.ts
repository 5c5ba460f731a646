// Every command of `mcpkit` against our example server, text and `--format json`; run over stdio and over HTTP
// by example-stdio.test.ts and example-http.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { json, mcpkit, type Run, tempHome } from './helpers.js';

/** How the tests name the server: words placed after the command's own (a URL, or `-- node server.js`). */
export type TargetWords = () => { before: string[]; after: string[] };

/** Runs `mcpkit <command> [target] words… [-- command]`. */
function run(target: TargetWords, command: string, words: string[] = []): Promise<Run> {
  const { before, after } = target();
  return mcpkit([command, ...before, ...words, ...after]);
}

function ok(r: Run): Run {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/**
 * Registers the tests of every command against the example server reached through `target`. `full` adds the
 * variations (JSON of every list, every kind of misfit, both pinned eras); without it every command still runs,
 * in text and in JSON, for a transport whose every run starts a server process (stdio), which a loaded machine
 * makes slow.
 */
export function everyCommand(target: TargetWords, full: boolean): void {
  test('tools: a table with arguments typed, and JSON', async () => {
    const text = ok(await run(target, 'tools')).stdout;
    assert.match(text, /^NAME\s+ARGUMENTS\s+DESCRIPTION$/m);
    assert.match(text, /^add\s+a:number b:number\s+Adds two numbers\.$/m);
    assert.match(text, /^echo\s+text:string\s+Echoes its text argument\.$/m);
    const { tools } = json<{ tools: { name: string; inputSchema: unknown }[] }>(
      ok(await run(target, 'tools', ['--format', 'json'])),
    );
    assert.ok(tools.some((t) => t.name === 'add'));
  });

  test('resources, templates and prompts: tables and JSON', async () => {
    assert.match(
      ok(await run(target, 'resources')).stdout,
      /^test:\/\/static-text\s+static-text\s+text\/plain/m,
    );
    assert.match(ok(await run(target, 'templates')).stdout, /^test:\/\/items\/\{id\}\s+item\s+text\/plain/m);
    assert.match(ok(await run(target, 'prompts')).stdout, /^test_prompt_with_arguments\s+arg1 arg2\s+/m);
    if (!full) return;
    const { resources } = json<{ resources: { uri: string }[] }>(
      ok(await run(target, 'resources', ['--format', 'json'])),
    );
    assert.ok(resources.some((r) => r.uri === 'test://static-binary'));
    const { resourceTemplates } = json<{ resourceTemplates: { uriTemplate: string }[] }>(
      ok(await run(target, 'templates', ['--format', 'json'])),
    );
    assert.ok(resourceTemplates.some((r) => r.uriTemplate === 'test://items/{id}'));
    const { prompts } = json<{ prompts: { name: string }[] }>(
      ok(await run(target, 'prompts', ['--format', 'json'])),
    );
    assert.ok(prompts.some((p) => p.name === 'greet'));
  });

  test('call: key=value coerced by the schema (numbers stay numbers), structured content, JSON', async () => {
    assert.equal(ok(await run(target, 'call', ['echo', 'text=hello world'])).stdout, 'echo: hello world\n');
    // "007" is a string for echo's text, a number for add's a: the schema decides, not the look of the value.
    assert.equal(ok(await run(target, 'call', ['echo', 'text=007'])).stdout, 'echo: 007\n');
    const sum = json<{ structuredContent: { sum: number }; isError?: boolean }>(
      ok(await run(target, 'call', ['add', 'a=007', 'b=0.5', '--format', 'json'])),
    );
    assert.deepEqual(sum.structuredContent, { sum: 7.5 });
    if (!full) return;
    const viaJson = ok(await run(target, 'call', ['add', '--args-json', '{"a": 2, "b": 3}', 'b=4']));
    assert.match(viaJson.stdout, /"sum":6/);
  });

  test('call: a value that does not fit the schema is exit 1 saying which argument and why', async () => {
    const bad = await run(target, 'call', ['add', 'a=1', 'b=two']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /argument "b": expected a number, got "two"/);
    if (!full) return;
    const missing = await run(target, 'call', ['add', 'a=1']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /tool "add" needs b=… \(missing required argument\)/);
    const bool = await run(target, 'call', ['toggle_feature', 'enabled=yes']);
    assert.equal(bool.code, 1);
    assert.match(bool.stderr, /argument "enabled": expected true or false, got "yes"/);
    const unknown = await run(target, 'call', ['ecko', 'text=x']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no tool "ecko" .*did you mean "echo"/);
    const badJson = await run(target, 'call', ['add', '--args-json', '{a:1}']);
    assert.equal(badJson.code, 1);
    assert.match(badJson.stderr, /--args-json is not valid JSON/);
  });

  test('call: a tool returning isError is exit 5 (its content still printed; JSON error on stderr)', async () => {
    const text = await run(target, 'call', ['test_error_handling']);
    assert.equal(text.code, 5, text.stderr);
    assert.match(text.stdout, /intentionally returns an error/);
    assert.match(text.stderr, /returned an error \(isError\)/);
    if (!full) return;
    const asJson = await run(target, 'call', ['test_error_handling', '--format', 'json']);
    assert.equal(asJson.code, 5);
    assert.equal(json<{ isError: boolean }>(asJson).isError, true);
    assert.equal(JSON.parse(asJson.stderr).error.kind, 'tool_error');
  });

  test('call: content blocks rendered; images saved to files with --save-media', async () => {
    const described = ok(await run(target, 'call', ['test_multiple_content_types'])).stdout;
    assert.match(described, /\[image image\/png, 70 bytes\] \(save with --save-media DIR\)/);
    assert.match(described, /\[resource test:\/\/mixed-content-resource\]/);
    const dir = join(tempHome(), 'media');
    const saved = ok(await run(target, 'call', ['test_image_content', '--save-media', dir])).stdout;
    const file = /saved to (\S+)/.exec(saved)?.[1];
    assert.ok(file !== undefined && existsSync(file), saved);
    assert.deepEqual([...readFileSync(file).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  });

  test('call: progress notifications as lines on stderr (not a terminal), logs with their level', async () => {
    const progress = ok(await run(target, 'call', ['test_tool_with_progress']));
    assert.match(progress.stderr, /^progress 0\/100 Starting$/m);
    assert.match(progress.stderr, /^progress 100\/100 Done$/m);
    const logs = ok(await run(target, 'call', ['test_tool_with_logging', '--log-level', 'info']));
    assert.match(logs.stderr, /^\[info\] Tool execution started$/m);
    if (!full) return;
    const quiet = ok(await run(target, 'call', ['test_tool_with_logging', '--log-level', 'error']));
    assert.doesNotMatch(quiet.stderr, /\[info\]/);
  });

  test('read: text as it is, a blob described or saved, JSON', async () => {
    assert.equal(ok(await run(target, 'read', ['test://items/beta'])).stdout.trim().length > 0, true);
    assert.match(
      ok(await run(target, 'read', ['test://static-binary'])).stdout,
      /\[blob image\/png, 70 bytes\]/,
    );
    const r = json<{ contents: { uri: string; text?: string }[] }>(
      ok(await run(target, 'read', ['test://static-text', '--format', 'json'])),
    );
    assert.equal(r.contents[0]?.uri, 'test://static-text');
    if (!full) return;
    // The server's JSON-RPC error: exit 6, the server answered with an error (not 1, usage).
    const missing = await run(target, 'read', ['test://nope']);
    assert.equal(missing.code, 6);
    assert.match(missing.stderr, /not found/i);
  });

  test('prompt: messages with their roles; arguments checked against the prompt', async () => {
    assert.equal(ok(await run(target, 'prompt', ['greet', 'name=Ann'])).stdout, 'user: Hello, Ann!\n');
    const asJson = json<{ messages: { role: string }[] }>(
      ok(await run(target, 'prompt', ['greet', 'name=Ann', '--format', 'json'])),
    );
    assert.equal(asJson.messages[0]?.role, 'user');
    if (!full) return;
    const typo = await run(target, 'prompt', ['greet', 'nam=Ann']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /prompt "greet" has no argument "nam" \(did you mean "name"\?\)/);
  });

  test('complete: a prompt argument and a template variable', async () => {
    const names = ok(await run(target, 'complete', ['--prompt', 'greet', 'name', 'A'])).stdout.split('\n');
    assert.ok(names.includes('Ada'), names.join(','));
    const ids = json<{ completion: { values: string[] } }>(
      ok(await run(target, 'complete', ['--template', 'test://items/{id}', 'id', '', '--format', 'json'])),
    );
    assert.ok(ids.completion.values.includes('beta'));
  });

  test('ping and discover (text and JSON)', async () => {
    assert.match(ok(await run(target, 'ping')).stdout, /^ok \(\d+(\.\d+)? ms\)$/m);
    const text = ok(await run(target, 'discover')).stdout;
    assert.match(text, /^server\s+mcpkit-everything 0\.1\.0$/m);
    assert.match(text, /^capabilities\s+.*tools/m);
    assert.match(text, /^instructions\n\s+A test server/m);
    const modern = json<{ era: string; protocolVersion: string; capabilities: Record<string, unknown> }>(
      ok(await run(target, 'discover', ['--format', 'json'])),
    );
    assert.equal(modern.era, 'modern');
    assert.equal(modern.protocolVersion, '2026-07-28');
    assert.ok(modern.capabilities.tools !== undefined);
    const legacy = json<{ era: string; protocolVersion: string }>(
      ok(await run(target, 'discover', ['--era', 'legacy', '--format', 'json'])),
    );
    assert.deepEqual([legacy.era, legacy.protocolVersion], ['legacy', '2025-11-25']);
    if (!full) return;
    // A call works pinned to either era.
    assert.equal(
      ok(await run(target, 'call', ['echo', 'text=old', '--era', 'legacy'])).stdout,
      'echo: old\n',
    );
    assert.equal(
      ok(await run(target, 'call', ['echo', 'text=new', '--era', 'modern'])).stdout,
      'echo: new\n',
    );
  });
}
