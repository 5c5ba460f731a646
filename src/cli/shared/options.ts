// Flags shared by the commands (declared here, parsed by commander): kept free of heavy imports, since every
// command's definition loads this file for `mcpkit --help`.
import type { Command } from 'commander';

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `--trust-project`: the working folder's project config files are trusted for this run. */
export function withTrustProject(command: Command): Command {
  return command.option(
    '--trust-project',
    "trust the working folder's project config files (.mcp.json, .vscode/mcp.json, .cursor/mcp.json, mcpkit.json) for this run",
  );
}

/** `--sandbox`: every stdio server runs sandboxed (the safe preset) unless its config says otherwise. */
export function withSandbox(command: Command): Command {
  return command.option(
    '--sandbox',
    'run stdio servers sandboxed (no network, the system read-only, your home folder hidden) unless a config sets their "sandbox"; Linux, with bubblewrap',
  );
}

/** `--otel`: spans and metrics exported over OTLP/HTTP (see `otel.ts`). */
export function withOtel(command: Command): Command {
  return command.option('--otel', OTEL_HELP);
}

const OTEL_HELP =
  'export traces and metrics over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (OTEL_EXPORTER_OTLP_PROTOCOL http/json or http/protobuf, OTEL_SERVICE_NAME); needs the @opentelemetry SDK packages installed';

/** `--format text|json`. */
export function withFormat(command: Command): Command {
  return command.option(
    '--format <format>',
    'output: "text" (readable) or "json" (one document on stdout)',
    'text',
  );
}

/** The flags of a command that talks to a server: how to reach it, the era, logs, time limit, output. */
export function withTarget(command: Command): Command {
  return withFormat(
    withSandbox(
      withTrustProject(
        command.option(
          '--config <file>',
          'host config file to look a server name up in (default: the known locations)',
        ),
      ),
    )
      .option('--cwd <dir>', 'working directory of a stdio server')
      .option('-e, --env <NAME=value>', 'environment variable for a stdio server (repeatable)', collect)
      .option('--header <"Name: value">', 'HTTP header for a URL target (repeatable)', collect)
      .option('--era <era>', 'protocol era: "legacy" (initialize), "modern" (2026-07-28) or "auto"', 'auto')
      .option('--log-level <level>', 'ask the server for log messages at this level (they go to stderr)')
      .option('--timeout <ms>', 'time limit of each request in milliseconds', '60000')
      .option('--otel', OTEL_HELP),
  );
}
