// The implementations under test. Each has a stdio server file under servers/ exposing the same `echo` tool; the
// three MCP libraries also have an in-process adapter under inproc/. An HTTP variant adds an `http` entry here (a
// server command listening on 127.0.0.1) and an HTTP load generator beside load/stdio.ts; the workloads and the
// report pick it up from this table.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerCommand } from './load/stdio.js';
import type { Group } from './workloads/types.js';

/** Short names, used on the command line (`--impl mcpkit,raw`). */
export type ImplName = 'mcpkit' | 'mcpkit-json' | 'official-v1' | 'official-v2' | 'raw';

/** One implementation under test. */
export interface Implementation {
  name: ImplName;
  /** Column heading, with the version measured. */
  label: string;
  /** The stdio server exposing `echo`. */
  stdio: ServerCommand;
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

/** Every implementation, in report order. */
export const IMPLEMENTATIONS: readonly Implementation[] = [
  { name: 'mcpkit', label: `mcpkit ${version('.')}`, stdio: stdio('mcpkit-stdio.js'), inproc: true },
  {
    name: 'official-v1',
    label: `official v1 (sdk ${version('@modelcontextprotocol/sdk')})`,
    stdio: stdio('official-v1-stdio.js'),
    inproc: true,
  },
  {
    name: 'official-v2',
    label: `official v2 (server ${version('@modelcontextprotocol/server')})`,
    stdio: stdio('official-v2-stdio.js'),
    inproc: true,
  },
  { name: 'raw', label: 'raw Node baseline', stdio: stdio('raw-stdio.js'), inproc: false },
  {
    name: 'mcpkit-json',
    label: 'mcpkit, JSON Schema tool (no zod)',
    stdio: stdio('mcpkit-json-stdio.js'),
    inproc: false,
    groups: ['coldstart'],
  },
];
