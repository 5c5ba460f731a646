// `mcpkit inspect` as users run it: the first stderr line is `Inspector: <url with its token>`, the URL serves the
// page (after the token moves into the cookie), the target given is connected at once, `--port` fixes the port,
// the browser is opened ($BROWSER here) unless --no-open, and SIGTERM ends it all (the stdio server too).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_STDIO, freePort, MCPKIT, ROOT, startExampleHttp, tempHome } from './helpers.js';

/** Starts `mcpkit inspect args…`; resolves with the process and the first stderr line. */
async function startInspect(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  cwd = ROOT,
): Promise<{ child: ChildProcess; first: string; stderr: () => string }> {
  const child = spawn(process.execPath, [MCPKIT, 'inspect', ...args], {
    cwd,
    env: { ...process.env, XDG_CONFIG_HOME: tempHome(), BROWSER: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    text += c;
  });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no first line: ${text}`)), 30_000);
    const check = () => {
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(text.slice(0, nl));
      }
    };
    child.stderr?.on('data', check);
    child.once('exit', (code) => reject(new Error(`mcpkit inspect exited (${code}): ${text}`)));
  });
  return { child, first, stderr: () => text };
}

/** Ends the command by its pid; resolves with its exit code. */
async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  if (child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

function get(url: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(url, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

/** Opens the printed URL as a browser would: the token for a cookie, then the page. */
async function open(url: string): Promise<string> {
  const first = await get(url);
  assert.equal(first.status, 303);
  const cookie = String(first.headers['set-cookie']).split(';')[0] as string;
  const page = await get(new URL('/', url).href, { Cookie: cookie });
  assert.equal(page.status, 200);
  assert.match(page.body, /mcpkit inspector/);
  return cookie;
}

async function stateOf(url: string, cookie: string): Promise<{ status: string; [k: string]: unknown }> {
  const res = await get(
    new URL('/api/state', url).href,
    { Cookie: cookie, 'Content-Type': 'application/json' },
    '{}',
  );
  return JSON.parse(res.body).result.state;
}

/** How the page shows a stdio server the config does not sandbox. */
const UNSANDBOXED = { sandboxed: false, summary: 'not sandboxed (runs with your full rights)' };

async function until<T>(what: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('mcpkit inspect -- <stdio server>: the URL first on stderr, the target connected at once, SIGTERM ends it', async () => {
  const run = await startInspect(['--no-open', ...EXAMPLE_STDIO]);
  try {
    const m = /^Inspector: (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{43})$/.exec(run.first);
    assert.ok(m, run.first);
    const url = m[1] as string;
    const cookie = await open(url);
    const state = await until(
      () => stateOf(url, cookie),
      (s) => s.status === 'connected',
    );
    assert.equal(state.status, 'connected', JSON.stringify(state));
    assert.equal((state.serverInfo as { name: string }).name, 'mcpkit-everything');
    await until(
      async () => run.stderr(),
      (t) => t.includes('Connected to'),
    );
  } finally {
    assert.equal(await stop(run.child), 0);
  }
});

test('mcpkit inspect <url> --port N --header: the fixed port, the header kept off the page, the browser opened', async () => {
  const server = await startExampleHttp();
  const port = await freePort();
  const dir = tempHome();
  const opened = join(dir, 'opened.txt');
  const fakeBrowser = join(dir, 'browser.sh');
  writeFileSync(fakeBrowser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
  chmodSync(fakeBrowser, 0o755);
  const run = await startInspect(
    [server.url, '--port', String(port), '--header', 'X-Secret: hidden-value-123', '--era', 'legacy'],
    { BROWSER: fakeBrowser },
  );
  try {
    const url = run.first.replace(/^Inspector: /, '');
    assert.equal(new URL(url).port, String(port));
    const cookie = await open(url);
    const state = await until(
      () => stateOf(url, cookie),
      (s) => s.status === 'connected',
    );
    assert.equal(state.status, 'connected', JSON.stringify(state));
    assert.equal(state.protocolVersion, '2025-11-25');
    assert.doesNotMatch(JSON.stringify(state), /hidden-value-123/);
    await until(
      async () => {
        try {
          return readFileSync(opened, 'utf8');
        } catch {
          return '';
        }
      },
      (t) => t !== '',
    );
    assert.equal(readFileSync(opened, 'utf8'), url);
  } finally {
    assert.equal(await stop(run.child), 0);
    await stop(server.child);
  }
});

test('mcpkit inspect with a bad --port is a usage error', async () => {
  const child = spawn(process.execPath, [MCPKIT, 'inspect', '--no-open', '--port', 'x', ...EXAMPLE_STDIO], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 1);
  assert.match(err, /--port/);
});

test('mcpkit inspect with a broken host config in a known location: the Inspector line still first, then a note', async () => {
  const home = tempHome();
  // The user's own file (a project's broken file is skipped with a notice instead).
  writeFileSync(join(home, '.claude.json'), '{"mcpServers": {"broken": ');
  const run = await startInspect(['--no-open'], { HOME: home }, home);
  try {
    assert.match(run.first, /^Inspector: http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    const noted = await until(
      async () => run.stderr(),
      (t) => t.includes('could not be read'),
    );
    assert.match(noted, /could not be read.*no configured servers in the page/);
    const url = run.first.slice('Inspector: '.length);
    const state = await stateOf(url, await open(url));
    assert.deepEqual([state.configured, state.host, state.status], [[], false, 'idle']);
  } finally {
    assert.equal(await stop(run.child), 0);
  }
});

test('mcpkit inspect --config FILE: the page lists its servers and inspects the host; a broken --config is exit 1', async () => {
  const home = tempHome();
  const config = join(home, 'claude_desktop_config.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { one: { command: process.execPath, args: [EXAMPLE_STDIO[2] as string] } },
    }),
  );
  const run = await startInspect(['--no-open', '--config', config], { HOME: home }, home);
  try {
    const url = run.first.slice('Inspector: '.length);
    const cookie = await open(url);
    const state = await until(
      () => stateOf(url, cookie),
      // Connected at once; the host's servers come up in the background.
      (s) =>
        s.status === 'connected' &&
        JSON.stringify(s.hostServers) ===
          JSON.stringify([{ name: 'one', state: 'ready', sandbox: UNSANDBOXED }]),
    );
    assert.deepEqual([state.configured, state.host, state.transport], [['one'], true, 'host']);
    assert.deepEqual(state.hostServers, [{ name: 'one', state: 'ready', sandbox: UNSANDBOXED }]);
  } finally {
    assert.equal(await stop(run.child), 0);
  }
  writeFileSync(config, '{"mcpServers": ');
  const broken = spawn(process.execPath, [MCPKIT, 'inspect', '--no-open', '--config', config], {
    cwd: home,
    env: { ...process.env, XDG_CONFIG_HOME: home, HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  broken.stderr?.setEncoding('utf8').on('data', (c: string) => {
    text += c;
  });
  const [code] = (await once(broken, 'exit')) as [number | null];
  assert.equal(code, 1, text);
  assert.match(text, /claude_desktop_config\.json/);
  assert.doesNotMatch(text, /Inspector:/);
});
