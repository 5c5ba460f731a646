// The implementations under test. Each has a stdio server file under servers/ exposing the same `echo` tool; the
// three MCP libraries also have an in-process adapter under inproc/; each with an `http` entry has an HTTP server
// (servers/*-http.ts, listening on 127.0.0.1) and says which of its modes answers which HTTP workload. The
// workloads and the report pick everything up from this table.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerCommand } from './load/stdio.js';
import type { HttpMode } from './servers/http-common.js';
import type { Group } from './workloads/types.js';

/**
 * The HTTP workloads' server setups: `stateless` (no sessions, JSON replies), `json` and `sse` (a session per
 * client, JSON or SSE replies), `modern` (the stateless 2026-07-28 revision), `memory` (idle sessions).
 */
export type HttpWorkloadMode = 'stateless' | 'json' | 'sse' | 'modern' | 'memory';

/** An implementation's HTTP server and the server mode it runs for each HTTP workload it takes part in. */
export interface HttpServer {
  command: ServerCommand;
  modes: Partial<Record<HttpWorkloadMode, HttpMode>>;
}

/** Short names, used on the command line (`--impl mcpkit,raw`). */
export type ImplName = 'mcpkit' | 'mcpkit-before' | 'mcpkit-json' | 'official-v1' | 'official-v2' | 'raw';

/** One implementation under test. */
export interface Implementation {
  name: ImplName;
  /** Column heading, with the version measured. */
  label: string;
  /** The stdio server exposing `echo`. */
  stdio: ServerCommand;
  /** Whether that stdio server speaks the 2026-07-28 revision (the `-modern` stdio workloads). */
  modernStdio?: boolean;
  /** The Streamable HTTP server, for the HTTP workloads (argv: `<port> <mode>`). */
  http?: HttpServer;
  /** Whether in-process micro-benchmarks apply (the raw baseline has no library to call). */
  inproc: boolean;
  /** Workload groups this variant is limited to (all when absent). */
  groups?: readonly Group[];
}

/** This package's root (dist/bench/ is two levels below it). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVERS = join(ROOT, 'dist', 'bench', 'servers');

function version(pkg: string): string {
  try {
    const file = join(ROOT, ...(pkg === '.' ? [] : ['node_modules', pkg]), 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

function stdio(file: string): ServerCommand {
  return { command: process.execPath, args: [join(SERVERS, file)] };
}

/** HTTP servers run with --expose-gc, so a memory reading can collect garbage first. */
function http(file: string, modes: HttpServer['modes']): HttpServer {
  return { command: { command: process.execPath, args: ['--expose-gc', join(SERVERS, file)] }, modes };
}

/** Every implementation, in report order. */
export const IMPLEMENTATIONS: readonly Implementation[] = [
  {
    name: 'mcpkit',
    label: `mcpkit ${version('.')}`,
    stdio: stdio('mcpkit-stdio.js'),
    modernStdio: true,
    // 'default' is serve() with its defaults: sessions, 'auto' replies, and 2026-07-28 on the same endpoint.
    http: http('mcpkit-http.js', {
      stateless: 'stateless',
      json: 'json',
      sse: 'sse',
      modern: 'default',
      memory: 'default',
    }),
    inproc: true,
  },
  {
    name: 'official-v1',
    label: `official v1 (sdk ${version('@modelcontextprotocol/sdk')})`,
    stdio: stdio('official-v1-stdio.js'),
    // v1's default replies are SSE, so its idle sessions are measured in 'sse' mode.
    http: http('official-v1-http.js', { stateless: 'stateless', json: 'json', sse: 'sse', memory: 'sse' }),
    inproc: true,
  },
  {
    name: 'official-v2',
    label: `official v2 (server ${version('@modelcontextprotocol/server')})`,
    stdio: stdio('official-v2-stdio.js'),
    http: http('official-v2-http.js', { stateless: 'stateless', modern: 'modern' }),
    inproc: true,
  },
  {
    name: 'raw',
    label: 'raw Node baseline',
    stdio: stdio('raw-stdio.js'),
    modernStdio: true,
    // One plain JSON server for every mode; for the 2026-07-28 workload its result adds resultType and serverInfo.
    http: http('raw-http.js', {
      stateless: 'stateless',
      json: 'stateless',
      sse: 'stateless',
      modern: 'modern',
    }),
    inproc: false,
  },
  {
    name: 'mcpkit-json',
    label: 'mcpkit, JSON Schema tool (no zod)',
    stdio: stdio('mcpkit-json-stdio.js'),
    inproc: false,
    groups: ['coldstart'],
  },
];

/**
 * mcpkit as built in another checkout (`--baseline DIR`: a clone at an earlier commit, after `npm install` and
 * `npm run build` there), measured in the same run as this one so a change is reported as a before/after ratio.
 * It runs that checkout's own bench servers, which load that checkout's build of mcpkit.
 */
export function baselineImplementation(dir: string, label: string): Implementation {
  const servers = join(dir, 'dist', 'bench', 'servers');
  for (const file of ['mcpkit-stdio.js', 'mcpkit-http.js']) {
    if (!existsSync(join(servers, file))) {
      throw new Error(
        `--baseline ${dir}: ${join(servers, file)} is missing (run npm install && npm run build there)`,
      );
    }
  }
  return {
    name: 'mcpkit-before',
    label,
    stdio: { command: process.execPath, args: [join(servers, 'mcpkit-stdio.js')] },
    modernStdio: true,
    http: {
      command: { command: process.execPath, args: ['--expose-gc', join(servers, 'mcpkit-http.js')] },
      modes: { stateless: 'stateless', json: 'json', sse: 'sse', modern: 'default', memory: 'default' },
    },
    inproc: false,
  };
}
