// The root entry runs wherever fetch does: the example server through the web-standard handler under Bun, Deno and
// Cloudflare's workerd (through miniflare), and the stdio server under Bun and Deno, each driven by our client in
// both eras and by the official SDK 1.x client. The runtimes are `bun`, `deno` and `miniflare`, installed on their own
// in tools/runtimes (the root's `npm ci` leaves their 330 MB out): this file installs them on demand, once
// (tools/install.mjs), and fails with npm's error when that fails. A runtime whose binary cannot run here is
// skipped with the reason, loudly.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { driveWithMcpkit, driveWithSdk, type Target } from './drive.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const tools = join(root, 'tools/runtimes');
const bin = (name: string) => join(tools, 'node_modules/.bin', name);
const WEB_SERVER = join(root, 'dist/test/runtimes/web-server.js');
const STDIO_SERVER = join(root, 'dist/examples/everything/server.js');
/** Each runtime's own tests finish well within this, even on a loaded machine. */
const TIMEOUT = 120_000;

/** Installs the runtimes unless the installed ones match tools/runtimes' lockfile; npm's error when that fails. */
function installRuntimes(): string | undefined {
  const r = spawnSync(process.execPath, [join(root, 'tools/install.mjs'), 'runtimes'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
  if (r.status === 0) return undefined;
  return `installing the runtimes failed (try \`npm ci --prefix tools/runtimes\`): ${r.error?.message ?? r.stderr}`;
}
const installError = installRuntimes();
if (installError !== undefined)
  test('the runtimes install into tools/runtimes', () => assert.fail(installError));

/** Why `binary` cannot run here (its `--version` failed), or undefined when it runs. */
function cannotRun(binary: string): string | undefined {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (r.status === 0) return undefined;
  const reason = `${binary} --version failed: ${r.error?.message ?? `exit ${r.status}: ${r.stderr.trim()}`}`;
  console.error(`\n!!! SKIPPED: ${reason}\n`);
  return reason;
}

const children: ChildProcess[] = [];
after(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts a web server script under a runtime and waits (bounded) for its `listening <url>` line. */
async function startWebServer(
  command: string,
  args: string[],
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening (\S+)/.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before listening:\n${output}`));
    });
  });
  return { url, child };
}

/** The walks every runtime gets over HTTP: our client in each era, then the official SDK client. */
function httpWalks(start: () => Promise<{ url: string; stop: () => Promise<void> }>): void {
  let server: { url: string; stop: () => Promise<void> } | undefined;
  const target = async (): Promise<Target> => {
    server ??= await start();
    return { url: server.url };
  };
  after(async () => server?.stop());
  test('Streamable HTTP: our client, 2026-07-28 (negotiated)', async () => {
    assert.equal(await driveWithMcpkit(await target(), 'auto'), 'stateless 2026-07-28');
  });
  test('Streamable HTTP: our client, stateful (2025-11-25)', async () => {
    assert.equal(await driveWithMcpkit(await target(), 'stateful'), 'stateful 2025-11-25');
  });
  test('Streamable HTTP: the official SDK 1.x client', async () => {
    assert.equal(await driveWithSdk(await target()), 'mcpkit-everything');
  });
}

/** The walks over stdio: the example server's own main, run by the runtime. */
function stdioWalks(command: string, args: string[]): void {
  const target: Target = { command, args: [...args, STDIO_SERVER] };
  test('stdio: our client, 2026-07-28 (negotiated)', async () => {
    assert.equal(await driveWithMcpkit(target, 'auto'), 'stateless 2026-07-28');
  });
  test('stdio: our client, stateful (2025-11-25)', async () => {
    assert.equal(await driveWithMcpkit(target, 'stateful'), 'stateful 2025-11-25');
  });
  test('stdio: the official SDK 1.x client', async () => {
    assert.equal(await driveWithSdk(target), 'mcpkit-everything');
  });
}

const bunSkip = installError ?? cannotRun(bin('bun'));
describe('Bun', { timeout: TIMEOUT, skip: bunSkip ?? false }, () => {
  httpWalks(async () => {
    const { url, child } = await startWebServer(bin('bun'), [WEB_SERVER]);
    return { url, stop: async () => void child.kill('SIGTERM') };
  });
  stdioWalks(bin('bun'), []);
});

// No lockfile written, no prompt (a missing permission fails at once); npm packages from node_modules, as
// package.json is found above the script.
const DENO_ARGS = ['run', '--no-lock', '--no-prompt', '--allow-net=127.0.0.1', '--allow-read', '--allow-env'];
const denoSkip = installError ?? cannotRun(bin('deno'));
describe('Deno', { timeout: TIMEOUT, skip: denoSkip ?? false }, () => {
  httpWalks(async () => {
    const { url, child } = await startWebServer(bin('deno'), [...DENO_ARGS, WEB_SERVER]);
    return { url, stop: async () => void child.kill('SIGTERM') };
  });
  stdioWalks(bin('deno'), DENO_ARGS);
});

const workerdSkip = installError ?? cannotRun(bin('workerd'));
describe('Cloudflare workerd (miniflare)', { timeout: TIMEOUT, skip: workerdSkip ?? false }, () => {
  httpWalks(async () => {
    // The worker module, bundled as wrangler would: one ES module, web platform, no Node built-ins.
    const dir = mkdtempSync(join(tmpdir(), 'mcpkit-worker-'));
    await build({
      entryPoints: [join(root, 'dist/test/runtimes/worker.js')],
      outfile: join(dir, 'worker.js'),
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'browser'],
      logLevel: 'warning',
    });
    // Served by tools/runtimes/workerd.mjs, beside the miniflare it imports.
    const { url, child } = await startWebServer(process.execPath, [
      join(tools, 'workerd.mjs'),
      join(dir, 'worker.js'),
    ]);
    return {
      url,
      stop: async () => {
        // miniflare disposes workerd on SIGTERM; bounded, then killed.
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});
