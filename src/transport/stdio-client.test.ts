import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { after, test } from 'node:test';
import { ErrorCode, McpkitError } from '../jsonrpc/errors.js';
import type { Parsed } from '../jsonrpc/parse.js';
import type { JsonRpcMessage } from '../jsonrpc/types.js';
import type { TransportReceiver } from '../protocol/transport.js';
import {
  DEFAULT_INHERITED_ENV_VARS,
  StdioClientTransport,
  type StdioClientTransportOptions,
} from './stdio-client.js';

const posixOnly = { skip: process.platform === 'win32' ? 'process groups are POSIX-only' : false };

// A tiny server: echoes requests, logs to stderr, crashes or prints garbage on demand, exits on stdin end.
const ECHO_SERVER = `
const rl = require('node:readline').createInterface({ input: process.stdin });
process.stderr.write('echo server ready\\n');
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'crash') {
    process.stderr.write('fatal: ' + msg.params.reason + '\\n', () => process.exit(3));
    return;
  }
  if (msg.method === 'garbage') process.stdout.write('this is not json\\n');
  const result = msg.method === 'env' ? { env: process.env } : { echo: msg.params ?? {} };
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\\n');
});
rl.on('close', () => process.exit(0));
`;

const spawned = new Set<number>();

after(() => {
  // Every process a test started (children and grandchildren) is killed by its own id.
  for (const pid of spawned) {
    if (isGone(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
});

interface Recorder extends TransportReceiver {
  messages: JsonRpcMessage[];
  invalid: Exclude<Parsed, { kind: 'message' }>[];
  errors: Error[];
  closes: (Error | undefined)[];
  closed: Promise<void>;
  next(): Promise<JsonRpcMessage>;
}

function recorder(): Recorder {
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const waiters: ((m: JsonRpcMessage) => void)[] = [];
  const r: Recorder = {
    messages: [],
    invalid: [],
    errors: [],
    closes: [],
    closed,
    next: () => new Promise((resolve) => waiters.push(resolve)),
    onmessage: (m) => {
      r.messages.push(m);
      waiters.shift()?.(m);
    },
    oninvalid: (p) => r.invalid.push(p),
    onerror: (e) => r.errors.push(e),
    onclose: (e) => {
      r.closes.push(e);
      resolveClosed();
    },
  };
  return r;
}

async function startEcho(
  extra: Partial<StdioClientTransportOptions> = {},
): Promise<{ transport: StdioClientTransport; r: Recorder }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['-e', ECHO_SERVER],
    ...extra,
  });
  const r = recorder();
  await transport.start(r);
  spawned.add(transport.pid!);
  return { transport, r };
}

/** True once `pid` has terminated (a zombie counts: this sandbox's init may not reap orphans). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** Waits (briefly) for `pid` to finish dying: our pipes close a moment before the kernel marks it exited. */
async function waitGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && !isGone(pid); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return isGone(pid);
}

/** Starts `sh -c script` and resolves the pid the script printed to stderr as `grandchild:<pid>`. */
async function startTree(
  script: string,
): Promise<{ transport: StdioClientTransport; r: Recorder; grandchild: number }> {
  const transport = new StdioClientTransport({ command: 'sh', args: ['-c', script], closeTimeoutMs: 150 });
  const seen = new Promise<number>((resolve) => {
    transport.onstderr = () => {
      const match = /grandchild:(\d+)/.exec(transport.stderrTail);
      if (match) resolve(Number(match[1]));
    };
  });
  const r = recorder();
  await transport.start(r);
  spawned.add(transport.pid!);
  const grandchild = await seen;
  spawned.add(grandchild);
  return { transport, r, grandchild };
}

test('round trip with a real process; stderr is captured; close ends it cleanly', async () => {
  const chunks: string[] = [];
  const { transport, r } = await startEcho();
  transport.onstderr = (chunk) => chunks.push(chunk);
  const reply = r.next();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'héllo ✓' } });
  assert.deepEqual(await reply, { jsonrpc: '2.0', id: 1, result: { echo: { text: 'héllo ✓' } } });
  assert.match(transport.stderrTail, /echo server ready/);
  const pid = transport.pid!;
  await transport.close();
  await transport.close();
  assert.deepEqual(r.closes, [undefined]);
  assert.deepEqual(r.errors, []);
  assert.ok(await waitGone(pid));
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => {
    return e instanceof McpkitError && e.code === 'CONNECTION_CLOSED';
  });
});

test('the server inherits only the allow-listed environment plus env', async () => {
  process.env.MCPKIT_TEST_SECRET = 'do-not-leak';
  const { transport, r } = await startEcho({ env: { EXTRA_SETTING: '42' } });
  const reply = r.next();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'env' });
  const message = await reply;
  await transport.close();
  delete process.env.MCPKIT_TEST_SECRET;
  const env = ('result' in message ? message.result.env : {}) as Record<string, string>;
  assert.equal(env.EXTRA_SETTING, '42');
  assert.equal(env.MCPKIT_TEST_SECRET, undefined);
  for (const key of Object.keys(env)) {
    assert.ok(key === 'EXTRA_SETTING' || DEFAULT_INHERITED_ENV_VARS.includes(key), `unexpected ${key}`);
  }
});

test('a non-JSON stdout line goes to oninvalid', async () => {
  const { transport, r } = await startEcho();
  const reply = r.next();
  await transport.send({ jsonrpc: '2.0', id: 7, method: 'garbage' });
  await reply;
  assert.equal(r.invalid.length, 1);
  const [bad] = r.invalid;
  assert.equal(bad?.kind === 'invalid' && bad.error.error.code, ErrorCode.ParseError);
  await transport.close();
});

test('a crash mid-stream closes with PROCESS_EXITED carrying the stderr tail', async () => {
  const { transport, r } = await startEcho();
  const reply = r.next();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'echo' });
  await reply;
  await transport.send({ jsonrpc: '2.0', id: 2, method: 'crash', params: { reason: 'out of cheese' } });
  await r.closed;
  assert.equal(r.closes.length, 1);
  const error = r.closes[0];
  assert.ok(error instanceof McpkitError);
  assert.equal(error.code, 'PROCESS_EXITED');
  assert.match(error.message, /^Server process exited with code 3 \(signal null\)\. Last stderr: /);
  assert.match(error.message, /fatal: out of cheese/);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), (e: unknown) => {
    return e instanceof McpkitError && e.code === 'CONNECTION_CLOSED';
  });
  await transport.close();
  assert.equal(r.closes.length, 1);
});

test('a command that does not exist makes start() reject clearly', async () => {
  const transport = new StdioClientTransport({ command: 'mcpkit-no-such-command-3f9a' });
  const r = recorder();
  await assert.rejects(transport.start(r), (e: unknown) => {
    return (
      e instanceof McpkitError &&
      e.code === 'SPAWN_FAILED' &&
      /"mcpkit-no-such-command-3f9a".*command not found \(ENOENT\)/.test(e.message)
    );
  });
  await transport.close();
  assert.deepEqual(r.closes, []);
  await assert.rejects(transport.send({ jsonrpc: '2.0', method: 'x' }), McpkitError);
});

test('close() kills the whole tree: a grandchild that ignores stdin and SIGTERM', posixOnly, async () => {
  const node = process.execPath;
  const stubborn = 'process.on("SIGTERM",()=>{});setInterval(()=>{},1000)';
  const { transport, r, grandchild } = await startTree(
    `'${node}' -e '${stubborn}' & echo grandchild:$! >&2; wait`,
  );
  const leader = transport.pid!;
  assert.equal(isGone(grandchild), false);
  await transport.close();
  assert.deepEqual(r.closes, [undefined]);
  assert.ok(await waitGone(leader), 'the shell is gone');
  assert.ok(await waitGone(grandchild), 'the grandchild is gone');
});

test('a leader that exits early does not orphan its children', posixOnly, async () => {
  const node = process.execPath;
  const { r, grandchild } = await startTree(
    `'${node}' -e 'setInterval(()=>{},1000)' & echo grandchild:$! >&2`,
  );
  await r.closed;
  // An exit nobody asked for is named to the caller, even with code 0.
  assert.equal(r.closes.length, 1);
  assert.match(String((r.closes[0] as Error | undefined)?.message), /exited with code 0/);
  assert.ok(await waitGone(grandchild), 'the grandchild is gone');
});

test('end to end with StdioServerTransport: the server exits by itself when stdin closes', {
  timeout: 10_000,
}, async () => {
  const serverModule = new URL('./stdio-server.js', import.meta.url).href;
  const script = `
    import { StdioServerTransport } from ${JSON.stringify(serverModule)};
    const transport = new StdioServerTransport();
    await transport.start({
      onmessage: (m) => void transport.send({ jsonrpc: '2.0', id: m.id, result: { pong: m.method } }),
      oninvalid: (p) => void transport.send(p.kind === 'invalid' ? p.error : { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch' } }),
      onerror: (e) => process.stderr.write(String(e) + '\\n'),
      onclose: () => process.stderr.write('server closed\\n'),
    });
  `;
  // A long closeTimeoutMs: if the server did not exit on its own, the test would time out.
  const { transport, r } = await startEcho({
    args: ['--input-type=module', '-e', script],
    closeTimeoutMs: 60_000,
  });
  const reply = r.next();
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  assert.deepEqual(await reply, { jsonrpc: '2.0', id: 1, result: { pong: 'ping' } });
  const error = r.next();
  await transport.send([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  assert.deepEqual(await error, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch' } });
  await transport.close();
  assert.deepEqual(r.closes, [undefined]);
  assert.deepEqual(r.invalid, []);
  assert.match(transport.stderrTail, /server closed/);
});
