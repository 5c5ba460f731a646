// Runs the official MCP conformance suite against the example server and the conformance client.
// Usage: npm run conformance [-- --only server|client]   (after `npm run build`)
//
// 1. Installs node@22 and @modelcontextprotocol/conformance@0.1.16 once into .conformance/tools (git-ignored).
// 2. Server: starts dist/examples/everything/server.js on 127.0.0.1 (free port), runs `conformance server
//    --suite all` against it, stops it by pid.
// 3. Client: runs every client scenario the suite lists (all of them: draft and extension ones too), each on
//    its own with dist/examples/conformance/client.js, inside a loopback-only
//    network namespace when `unshare -n` is permitted (the suite's mock servers listen on all interfaces).
// Fails on any failure, any WARNING check, a missing scenario, a scenario without a SUCCESS check, or a
// step that overran its time limit. Expected failures live in conformance/baseline.yml.
import { spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SUITE_VERSION = '0.1.16';
const NODE_MAJOR = 22;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.conformance');
const TOOLS = join(CACHE, 'tools');
const RESULTS = join(CACHE, 'results');
const BASELINE = join(ROOT, 'conformance', 'baseline.yml');
const SERVER_MAIN = join(ROOT, 'dist', 'examples', 'everything', 'server.js');
const CLIENT_MAIN = join(ROOT, 'dist', 'examples', 'conformance', 'client.js');

/** Time limits per step (ms). */
const LIMITS = {
  install: 10 * 60_000,
  list: 60_000,
  serverStart: 20_000,
  serverSuite: 5 * 60_000,
  serverStop: 10_000,
  clientScenario: 2 * 60_000,
};

/** Processes started here and still running: stopped by pid (their process group) on exit or interrupt. */
const live = new Set();
/** Set by SIGINT/SIGTERM: nothing new is started after it. */
let interrupted = false;

const say = (line = '') => process.stdout.write(`${line}\n`);
const rel = (path) => relative(ROOT, path) || '.';

class StepError extends Error {}

// ---- processes ----

/** Signals a child's process group (it was started detached, so the group id is its pid). */
function signal(child, sig) {
  try {
    process.kill(-child.pid, sig);
  } catch {
    // Already gone.
  }
}

/** Stops a child by pid: SIGTERM to its group, SIGKILL after `graceMs`; resolves when it has exited. */
function stop(child, graceMs = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => signal(child, 'SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    signal(child, 'SIGTERM');
  });
}

/** Starts a process in its own process group, tracked in `live` until it exits. */
function start(command, args, options = {}) {
  if (interrupted) throw new StepError('interrupted');
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: options.env ?? process.env,
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/**
 * Runs a command to completion within `timeoutMs`, its output going to `logFile` (and kept in memory).
 * Resolves { code, timedOut, output, ms }; a timeout stops it by pid.
 */
function run(command, args, { timeoutMs, logFile, env }) {
  const started = performance.now();
  const child = start(command, args, { env });
  const log = createWriteStream(logFile);
  let output = '';
  const collect = (chunk) => {
    output += chunk;
    log.write(chunk);
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stop(child);
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => {
      clearTimeout(timer);
      log.end();
      reject(new StepError(`could not start ${command}: ${e.message}`));
    });
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      log.end();
      resolve({ code: code ?? (sig ? 128 : 1), timedOut, output, ms: performance.now() - started });
    });
  });
}

function tail(text, lines = 30) {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

// ---- tools ----

const nodeBin = (dir) => join(dir, 'node_modules', 'node', 'bin', 'node');
const suiteBin = (dir) =>
  join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

function readVersion(packageJson) {
  try {
    return JSON.parse(readFileSync(packageJson, 'utf8')).version;
  } catch {
    return undefined;
  }
}

/** True when `dir` holds the pinned suite and a working Node of the right major version. */
function toolsReady(dir) {
  const suite = readVersion(
    join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'package.json'),
  );
  if (suite !== SUITE_VERSION || !existsSync(suiteBin(dir)) || !existsSync(nodeBin(dir))) return false;
  const probe = spawnSync(nodeBin(dir), ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return probe.status === 0 && probe.stdout.startsWith(`v${NODE_MAJOR}.`);
}

/** Installs the tools into a fresh directory beside the cache, then moves it into place. */
async function ensureTools() {
  if (toolsReady(TOOLS)) return;
  say(
    `installing node@${NODE_MAJOR} and @modelcontextprotocol/conformance@${SUITE_VERSION} into ${rel(TOOLS)} …`,
  );
  const staging = `${TOOLS}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(
    join(staging, 'package.json'),
    `${JSON.stringify(
      {
        name: 'mcpkit-conformance-tools',
        private: true,
        description:
          'The official MCP conformance suite and the Node it needs; installed by scripts/conformance.mjs',
        dependencies: { node: `^${NODE_MAJOR}`, '@modelcontextprotocol/conformance': SUITE_VERSION },
      },
      null,
      2,
    )}\n`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const logFile = join(CACHE, 'install.log');
  const result = await run(npm, ['install', '--no-audit', '--no-fund', '--prefix', staging], {
    timeoutMs: LIMITS.install,
    logFile,
  });
  if (result.timedOut || result.code !== 0 || !toolsReady(staging)) {
    rmSync(staging, { recursive: true, force: true });
    const why = result.timedOut
      ? `timed out after ${LIMITS.install / 1000} s`
      : result.code !== 0
        ? `npm exited with ${result.code}`
        : `npm succeeded but the installed tools do not work (is ignore-scripts set? the node package needs its install script)`;
    throw new StepError(
      `installing the conformance tools failed: ${why}; see ${rel(logFile)}\n${tail(result.output)}`,
    );
  }
  rmSync(TOOLS, { recursive: true, force: true });
  try {
    renameSync(staging, TOOLS);
  } catch (e) {
    // Another run moved its copy into place first.
    rmSync(staging, { recursive: true, force: true });
    if (!toolsReady(TOOLS)) throw e;
  }
  say(`installed (${Math.round(result.ms / 1000)} s)`);
}

function readBaseline() {
  if (!existsSync(BASELINE))
    throw new StepError(`${rel(BASELINE)} is missing (an empty one is \`server: []\` and \`client: []\`)`);
  const require = createRequire(join(TOOLS, 'package.json'));
  const { parse } = require('yaml');
  const parsed = parse(readFileSync(BASELINE, 'utf8')) ?? {};
  return { server: new Set(parsed.server ?? []), client: new Set(parsed.client ?? []) };
}

// ---- results ----

const STAMP = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** Reads every checks.json under `dir`: one entry per scenario, with its counts of SUCCESS, FAILURE and WARNING. */
function readResults(dir, prefix) {
  const found = new Map();
  const walk = (path) => {
    if (!existsSync(path)) return;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name === 'checks.json') {
        const name = relative(dir, path).split('\\').join('/').replace(STAMP, '').replace(prefix, '');
        const checks = JSON.parse(readFileSync(child, 'utf8'));
        const count = (status) => checks.filter((c) => c.status === status).length;
        const problems = checks
          .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
          .map((c) => `${c.status} [${c.id}] ${c.errorMessage ?? c.description ?? ''}`.trim());
        found.set(name, {
          passed: count('SUCCESS'),
          failed: count('FAILURE'),
          warnings: count('WARNING'),
          problems,
          dir: path,
        });
      }
    }
  };
  walk(dir);
  return found;
}

/** Judges one mode's results: rows for the summary, and the problems that fail the run. */
function judge(mode, expected, results, baseline) {
  const rows = [];
  const problems = [];
  for (const name of expected) {
    const r = results.get(name);
    if (r === undefined) {
      rows.push({ mode, name, passed: '-', failed: '-', warnings: '-', verdict: 'NO RESULT' });
      problems.push(`${mode} ${name}: no checks.json was written`);
      continue;
    }
    const bad = r.failed > 0 || r.warnings > 0 || r.passed === 0;
    const allowed = baseline.has(name);
    const verdict = !bad ? (allowed ? 'STALE BASELINE' : 'ok') : allowed ? 'expected failure' : 'FAIL';
    rows.push({ mode, name, ...r, verdict });
    if (bad && !allowed) {
      const why = r.problems.length > 0 ? r.problems : ['no SUCCESS check'];
      problems.push(`${mode} ${name}: ${why.join('; ')} (${rel(r.dir)})`);
    }
    if (!bad && allowed) problems.push(`${mode} ${name}: passes but is listed in ${rel(BASELINE)}`);
  }
  for (const name of results.keys()) {
    if (!expected.includes(name)) problems.push(`${mode} ${name}: unexpected result directory`);
  }
  return { rows, problems };
}

// ---- steps ----

/** Starts the example server on a free port; resolves its child process and the URL it printed. */
async function startServer(logFile) {
  const child = start(process.execPath, [SERVER_MAIN, '--http', '0']);
  const log = createWriteStream(logFile);
  child.stdout.pipe(log, { end: false });
  let seen = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new StepError(`the example server printed no URL within ${LIMITS.serverStart / 1000} s:\n${seen}`),
        ),
      LIMITS.serverStart,
    );
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      log.write(chunk);
      seen += chunk;
      const match = /Streamable HTTP at (http:\/\/[^\s,]+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new StepError(`the example server exited (${code}) before serving:\n${seen}`));
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new StepError(`could not start the example server: ${e.message}`));
    });
  }).catch(async (e) => {
    await stop(child);
    throw e;
  });
  child.once('close', () => log.end());
  // The suite's dns-rebinding scenario requires a localhost URL; the server listens on 127.0.0.1 only.
  const local = new URL(url);
  if (local.hostname !== '127.0.0.1') throw new StepError(`the example server is not on 127.0.0.1: ${url}`);
  local.hostname = 'localhost';
  return { child, url: local.href };
}

/** The scenarios of one mode, as the suite lists them (`--server` or `--client`: every suite, draft and extensions too). */
async function listScenarios(node, suite, mode) {
  const result = await run(node, [suite, 'list', `--${mode}`], {
    timeoutMs: LIMITS.list,
    logFile: join(RESULTS, `list-${mode}.log`),
  });
  const names = [...result.output.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
  if (result.code !== 0 || names.length === 0)
    throw new StepError(`conformance list --${mode} failed (${result.code}):\n${tail(result.output)}`);
  return names;
}

async function serverStep(node, suite, baseline) {
  const expected = await listScenarios(node, suite, 'server');
  const out = join(RESULTS, 'server');
  const { child, url } = await startServer(join(RESULTS, 'everything-server.log'));
  say(`server: the example server is at ${url} (pid ${child.pid}); running ${expected.length} scenarios …`);
  let result;
  try {
    result = await run(
      node,
      [suite, 'server', '--url', url, '--suite', 'all', '--expected-failures', BASELINE, '-o', out],
      { timeoutMs: LIMITS.serverSuite, logFile: join(RESULTS, 'server.log') },
    );
  } finally {
    await stop(child, LIMITS.serverStop);
  }
  const judged = judge('server', expected, readResults(out, /^server-/), baseline.server);
  if (result.timedOut)
    judged.problems.unshift(`server suite: timed out after ${LIMITS.serverSuite / 1000} s`);
  else if (result.code !== 0) judged.problems.unshift(`server suite: exited with ${result.code}`);
  return { ...judged, ms: result.ms, log: join(RESULTS, 'server.log') };
}

/** How to run a command in a loopback-only network namespace, or undefined (with the reason) when we cannot. */
function loopbackNamespace() {
  if (process.platform !== 'linux') return { why: 'not Linux' };
  const probe = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (probe.error) return { why: `unshare: ${probe.error.message}` };
  if (probe.status !== 0) return { why: (probe.stderr || `unshare exited with ${probe.status}`).trim() };
  return {
    wrap: (cmd, args) => [
      'unshare',
      ['-n', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', cmd, ...args],
    ],
  };
}

async function clientStep(node, suite, baseline) {
  const out = join(RESULTS, 'client');
  const netns = loopbackNamespace();
  if (netns.wrap) say('client: each scenario runs in a loopback-only network namespace (unshare -n)');
  else
    say(
      `WARNING: no loopback-only network namespace (${netns.why}); the suite's mock servers will listen on all interfaces while they run`,
    );
  // The suite splits the command on spaces and runs it through a shell: use this Node when its path is plain.
  const clientNode = /^[\w./-]+$/.test(process.execPath) ? process.execPath : 'node';
  const command = `${clientNode} ${rel(CLIENT_MAIN)}`;
  const expected = await listScenarios(node, suite, 'client');
  say(`client: running ${expected.length} scenarios …`);
  const problems = [];
  let ms = 0;
  for (const scenario of expected) {
    const args = [suite, 'client', '--command', command, '--scenario', scenario];
    args.push('--expected-failures', BASELINE, '-o', out);
    const [cmd, argv] = netns.wrap ? netns.wrap(node, args) : [node, args];
    const logFile = join(RESULTS, `client-${scenario.replaceAll('/', '_')}.log`);
    const result = await run(cmd, argv, { timeoutMs: LIMITS.clientScenario, logFile });
    ms += result.ms;
    if (result.timedOut)
      problems.push(
        `client ${scenario}: timed out after ${LIMITS.clientScenario / 1000} s (${rel(logFile)})`,
      );
    else if (result.code !== 0)
      problems.push(`client ${scenario}: the suite exited with ${result.code} (${rel(logFile)})`);
  }
  const judged = judge('client', expected, readResults(out, /^$/), baseline.client);
  return { rows: judged.rows, problems: [...problems, ...judged.problems], ms };
}

// ---- summary ----

function printSummary(rows) {
  const head = {
    mode: 'mode',
    name: 'scenario',
    passed: 'passed',
    failed: 'failed',
    warnings: 'warnings',
    verdict: '',
  };
  const width = Math.max(...[head, ...rows].map((r) => r.name.length));
  const line = (r) =>
    `${r.mode.padEnd(7)} ${r.name.padEnd(width)} ${String(r.passed).padStart(6)} ${String(r.failed).padStart(6)} ${String(r.warnings).padStart(8)}  ${r.verdict}`;
  say(line(head).trimEnd());
  for (const r of rows) say(line(r));
}

function totals(mode, rows, ms) {
  const sum = (key) => rows.reduce((n, r) => n + (typeof r[key] === 'number' ? r[key] : 0), 0);
  const ok = rows.filter((r) => r.verdict === 'ok').length;
  return `${mode}: ${ok}/${rows.length} scenarios passed; checks ${sum('passed')} passed, ${sum('failed')} failed, ${sum('warnings')} warnings (${(ms / 1000).toFixed(1)} s)`;
}

async function main() {
  const { values } = parseArgs({ options: { only: { type: 'string' } }, strict: true });
  if (values.only !== undefined && values.only !== 'server' && values.only !== 'client')
    throw new StepError('--only takes "server" or "client"');
  const started = performance.now();
  for (const file of [SERVER_MAIN, CLIENT_MAIN]) {
    if (!existsSync(file)) throw new StepError(`${rel(file)} is missing: run \`npm run build\` first`);
  }
  mkdirSync(CACHE, { recursive: true });
  await ensureTools();
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const node = nodeBin(TOOLS);
  const suite = suiteBin(TOOLS);
  const baseline = readBaseline();
  say(
    `conformance ${SUITE_VERSION} on node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}`,
  );

  const steps = [];
  if (values.only !== 'client') steps.push(['server', await serverStep(node, suite, baseline)]);
  if (values.only !== 'server') steps.push(['client', await clientStep(node, suite, baseline)]);

  say('');
  printSummary(steps.flatMap(([, s]) => s.rows));
  say('');
  for (const [mode, s] of steps) say(totals(mode, s.rows, s.ms));
  const problems = steps.flatMap(([, s]) => s.problems);
  say(
    `total time ${((performance.now() - started) / 1000).toFixed(1)} s; results and logs in ${rel(RESULTS)}`,
  );
  if (problems.length > 0) {
    say('');
    say('CONFORMANCE FAILED:');
    for (const p of problems) say(`  - ${p}`);
    return 1;
  }
  say('CONFORMANCE PASSED');
  return 0;
}

async function stopAll() {
  await Promise.all([...live].map((child) => stop(child)));
}

for (const [sig, number] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
]) {
  process.once(sig, () => {
    interrupted = true;
    say(`\n${sig}: stopping ${live.size} process(es)`);
    void stopAll().then(() => process.exit(128 + number));
  });
}

try {
  process.exitCode = await main();
} catch (e) {
  console.error(`conformance: ${e instanceof StepError ? e.message : (e?.stack ?? String(e))}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}
