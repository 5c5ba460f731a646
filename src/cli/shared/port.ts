// The port of `--http` (`mcpkit serve`, `mcpkit bridge`), checked: loaded when a command runs, never for `--help`.
import { CliError, ExitCode } from './exit.js';

/** The port of `--http`, checked. */
export function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(port) || port > 65535)
    throw new CliError(ExitCode.usage, `--http needs a port number (0-65535), got "${value}"`);
  return port;
}
