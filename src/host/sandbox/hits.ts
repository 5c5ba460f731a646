// Telling the person when a sandboxed server ran into its sandbox: the errors programs print when a file is hidden
// or read-only, a connection has no network, a fork is refused or memory runs out; and why a process was stopped
// (its CPU time, its memory). What the kernel refused is certain; which line says so is recognised, never guessed
// beyond these patterns.
import { constants } from 'node:os';

/** What a server ran into. */
export type SandboxHitKind = 'file' | 'network' | 'processes' | 'memory' | 'cpu';

/** One recognised run-in with the sandbox. */
export interface SandboxHit {
  kind: SandboxHitKind;
  /** What it means, for the person. */
  message: string;
  /** The line that said so. */
  line?: string;
}

const PATTERNS: readonly [RegExp, SandboxHitKind, string][] = [
  [/\bEROFS\b|read-only file system/i, 'file', 'a write outside its write grants was refused (read-only)'],
  [
    /\bEACCES\b|\bEPERM\b|permission denied|operation not permitted/i,
    'file',
    'an access outside its grants was refused',
  ],
  [
    /\bENETUNREACH\b|network is unreachable|\bEAI_AGAIN\b|\bENOTFOUND\b|temporary failure in name resolution/i,
    'network',
    'a connection was refused: the sandbox has no network to it',
  ],
  [
    /mcpkit sandbox: .* not in this server's network grants/i,
    'network',
    'a connection outside its network grants was refused by the host’s proxy',
  ],
  [
    /cannot fork|resource temporarily unavailable|\bEAGAIN\b.*(spawn|fork)|(spawn|fork).*\bEAGAIN\b/i,
    'processes',
    'a new process was refused: the sandbox’s process limit is reached',
  ],
  [
    // Node 24 says `Failed to allocate memory` (ERR_MEMORY_ALLOCATION_FAILED), Node 20 `Array buffer allocation failed`.
    /\bENOMEM\b|cannot allocate memory|allocation failed|failed to allocate memory|ERR_MEMORY_ALLOCATION_FAILED|out of memory/i,
    'memory',
    'memory was refused: the sandbox’s memory limit is reached',
  ],
];

/** The hit a line of a sandboxed server's stderr reports, if any. */
export function hitIn(line: string): SandboxHit | undefined {
  for (const [pattern, kind, message] of PATTERNS)
    if (pattern.test(line)) return { kind, message, line: line.trim().slice(0, 300) };
  if (/\bENOENT\b|no such file or directory/i.test(line) && /'\/(home|root|tmp|run|mnt|media)\b/.test(line))
    return {
      kind: 'file',
      message: 'a hidden path was not found (outside its read grants)',
      line: line.trim().slice(0, 300),
    };
  return undefined;
}

/** Why a sandboxed server ended, when its sandbox stopped it: its exit status (128 + signal from bwrap) and the memory group's kills. */
export function stopOf(
  status: number | undefined,
  oomKilled: boolean,
  cpuSeconds: number | undefined,
): SandboxHit | undefined {
  const signal = status !== undefined && status > 128 ? signalName(status - 128) : undefined;
  if (signal === 'SIGXCPU')
    return { kind: 'cpu', message: `stopped: it used up its CPU time (cpuSeconds ${cpuSeconds ?? '?'})` };
  if (oomKilled)
    return { kind: 'memory', message: 'stopped: it went over the sandbox’s memory limit (killed)' };
  return undefined;
}

function signalName(n: number): string | undefined {
  return Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
}
