import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ApprovalRequest, Host, type HostOptions, type ServerConfig } from '../../src/host.js';
import type { CallToolResult } from '../../src/index.js';

/** The repository root (tests run from dist/test/host). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = join(ROOT, 'node_modules', '.bin');
export const ODD_SERVER = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'odd-server.js');
/** A server whose `echo` tool changes (after `mutate`, or from the start with CHANGED=1). */
export const CHANGING_SERVER = join(ROOT, 'dist', 'test', 'host', 'fixtures', 'changing-server.js');
export const OFFICIAL_SERVER = join(ROOT, 'dist', 'test', 'fixtures', 'official-stdio-server.js');
export const EXAMPLE_SERVER = join(ROOT, 'dist', 'examples', 'everything', 'server.js');

/** The config of a stdio server run by `command` with `args`, called `name`. */
export function commandServer(
  name: string,
  command: string,
  args: string[],
  extra: Partial<ServerConfig> = {},
): ServerConfig {
  return {
    name,
    transport: { type: 'stdio', command, args, env: {}, namedEnv: [] },
    disabled: false,
    trusted: false,
    source: { file: 'test', format: 'mcpkit' },
    ...extra,
  };
}

/** The config of a stdio server run by node from `script` (`--name name` and `args` after it), called `name`. */
export function stdioServer(
  name: string,
  script: string,
  args: string[] = [],
  extra: Partial<ServerConfig> = {},
): ServerConfig {
  return commandServer(name, process.execPath, [script, '--name', name, ...args], extra);
}

/** The config of a reference server from npm, run by its `bin` in node_modules/.bin. */
export function npmServer(
  name: string,
  bin: string,
  args: string[],
  extra: Partial<ServerConfig> = {},
): ServerConfig {
  return commandServer(name, join(BIN, bin), args, extra);
}

/** The config of the odd server (fixtures/odd-server.ts) called `name`, over stdio, with more of its flags. */
export function oddServer(
  name: string,
  args: string[] = [],
  extra: Partial<ServerConfig> = {},
): ServerConfig {
  return stdioServer(name, ODD_SERVER, args, extra);
}

/**
 * A started host of `servers`, every one of them ready, whose person allows each call once; the questions are kept in
 * `asked`. A server not ready fails the test (the host is closed first).
 */
export async function allowingHost(
  servers: ServerConfig[],
  asked: ApprovalRequest[],
  options: HostOptions = {},
): Promise<Host> {
  const host = new Host(servers, {
    ...options,
    approve: (request) => {
      asked.push(request);
      return 'allow-once';
    },
  });
  const states = await host.start();
  try {
    for (const s of states) assert.equal(s.state, 'ready', `${s.name}: ${s.reason}`);
  } catch (e) {
    await host.close();
    throw e;
  }
  return host;
}

/** A fresh temporary folder. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `content` (JSON unless a string) to `dir/path`, creating folders. */
export function writeConfig(dir: string, path: string, content: unknown): string {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return full;
}

/** The text of a tool result's first block. */
export function text(result: CallToolResult): string {
  const block = result.content[0];
  assert.ok(block && block.type === 'text', `a text block in ${JSON.stringify(result)}`);
  return block.text;
}

/** Whether a process with this id is still running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until `check` holds. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
