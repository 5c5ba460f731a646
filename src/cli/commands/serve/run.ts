// What `mcpkit serve` does once parsed: checks its arguments, decides how TypeScript loads, and runs the server
// here, under a watching supervisor, or again with Node's type-stripping flag.
import { spawn } from 'node:child_process';
import { CliError, ExitCode } from '../../shared/exit.js';
import { parsePort } from '../../shared/port.js';
import type { ServeFlags } from './flags.js';
import { modulePath } from './module.js';
import { runServe } from './start.js';
import { TYPESCRIPT, typeScriptSupport } from './typescript.js';
import { runWatch } from './watch.js';

/** Serves the module `file` as the flags say; resolves with the exit code once it stops. */
export async function serveCommand(file: string, flags: ServeFlags): Promise<number> {
  const path = modulePath(file);
  const http = parsePort(flags.http);
  if (flags.watch && http === 0)
    throw new CliError(ExitCode.usage, '--watch keeps the port across restarts: give a fixed --http PORT');
  const ts = TYPESCRIPT.test(path) ? typeScriptSupport(path) : undefined;
  if (ts?.kind === 'none') throw new CliError(ExitCode.usage, ts.reason);
  const nodeFlags =
    ts?.kind === 'flag' ? ['--experimental-strip-types', '--disable-warning=ExperimentalWarning'] : [];
  const target = { path, http, exportName: flags.export, otel: flags.otel === true };
  if (flags.watch) return runWatch({ ...target, nodeFlags });
  if (nodeFlags.length > 0) return runAgain(nodeFlags);
  return runServe(target);
}

/** Runs this same command again with Node `flags`, sharing stdio; resolves with its exit code. */
function runAgain(flags: string[]): Promise<number> {
  const child = spawn(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', () => resolve(ExitCode.serverFailed));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
