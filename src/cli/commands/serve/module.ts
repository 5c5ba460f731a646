// Loading the server a module exports, for `mcpkit serve`: the default export or a named one, an `McpServer`
// recognised by its shape (the module may import its own copy of mcpkit, where `instanceof` would fail).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage } from '../../../jsonrpc/errors.js';
import type { McpServer } from '../../../server/server.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { enableTypeScript, TYPESCRIPT, typeScriptSupport } from './typescript.js';

/** Whether `value` is an `McpServer` (of this copy of mcpkit or another). */
export function isMcpServer(value: unknown): value is McpServer {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return ['connect', 'dispatch', 'tool', 'resource', 'prompt', 'close'].every(
    (k) => typeof v[k] === 'function',
  );
}

/** The absolute path of the module, checked to exist (a usage error otherwise). */
export function modulePath(file: string): string {
  const path = resolve(file);
  if (!existsSync(path)) throw new CliError(ExitCode.usage, `no such module: ${path}`);
  return path;
}

/**
 * Imports the module at `path` and returns the `McpServer` it exports: `exportName`, else the default export,
 * else its only named `McpServer` export. A module that fails to load is exit 2 (the server did not start).
 */
export async function loadServer(path: string, exportName: string | undefined): Promise<McpServer> {
  if (TYPESCRIPT.test(path)) await enableTypeScript(typeScriptSupport(path));
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (e) {
    throw new CliError(ExitCode.serverFailed, `${path} failed to load: ${errorMessage(e)}`, {
      stderr: e instanceof Error && e.stack ? e.stack : '',
    });
  }
  return pickServer(mod, path, exportName);
}

/** The server among a module's exports (see {@link loadServer}). */
export function pickServer(
  mod: Record<string, unknown>,
  path: string,
  exportName: string | undefined,
): McpServer {
  if (exportName !== undefined) {
    const named = mod[exportName];
    if (isMcpServer(named)) return named;
    throw new CliError(
      ExitCode.usage,
      named === undefined
        ? `${path} has no export named "${exportName}"`
        : `the export "${exportName}" of ${path} is not an McpServer`,
    );
  }
  if (isMcpServer(mod.default)) return mod.default;
  const servers = Object.keys(mod).filter((k) => k !== 'default' && isMcpServer(mod[k]));
  if (servers.length === 1) return mod[servers[0] as string] as McpServer;
  if (servers.length > 1)
    throw new CliError(
      ExitCode.usage,
      `${path} exports several servers (${servers.join(', ')}): pick one with --export NAME`,
    );
  throw new CliError(
    ExitCode.usage,
    `${path} exports no McpServer (export one as the default export, or name it with --export NAME)`,
  );
}
