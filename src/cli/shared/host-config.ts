// The host config files of a command, and how they load: `--config FILE` (the person's own: that file only), else
// the known locations that exist. The working folder's project files among them load when the person trusts them:
// asked on a terminal (a yes is recorded for the file's digest), for one run with `--trust-project`, else skipped.
import { existsSync } from 'node:fs';
import type { ConfigInput } from '../../host/config/formats.js';
import { type ConfigSource, loadConfig } from '../../host/config/load.js';
import { knownConfigLocations } from '../../host/config/locations.js';
import type { ProjectFile, TrustProjectCallback } from '../../host/config/project.js';
import { ProjectTrust } from '../../host/config/project-trust.js';
import type { LoadedConfig } from '../../host/config/types.js';
import { note } from './output.js';
import { Lines } from './terminal.js';

/** The flags that choose the host config files. */
export interface HostConfigFlags {
  config?: string;
  /** `--trust-project`: the working folder's project files are trusted for this run (nothing is recorded). */
  trustProject?: boolean;
  /** `--sandbox`: stdio servers run sandboxed (the safe preset) unless their config sets `sandbox`. */
  sandbox?: boolean;
}

/** What {@link loadHostConfig} may use: the chat's own input lines, and VS Code's `${input:…}` questions. */
export interface HostConfigOptions {
  lines?: Lines;
  input?: (input: ConfigInput) => Promise<string>;
}

/** The config files of a command: `--config FILE` (the person's), else the known locations that exist. */
export function configSources(config: string | undefined): ConfigSource[] {
  if (config !== undefined) return [{ path: config, scope: 'user' }];
  return knownConfigLocations({ workspaceFolder: process.cwd() }).filter((l) => existsSync(l.path));
}

/** Whether the person is at a terminal to be asked (stdin and stderr both terminals). */
export function atTerminal(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Loads the host config files of `flags`, deciding about the project files (see the file's header), and prints the
 * notices on stderr unless `quiet` (the caller prints them with {@link printNotices} when it is ready).
 */
export async function loadHostConfig(
  flags: HostConfigFlags,
  options: HostConfigOptions & { quiet?: boolean } = {},
): Promise<LoadedConfig> {
  // A reader of our own only when there is something to ask (stdin stays untouched otherwise).
  let own: Lines | undefined;
  const lines = () => {
    own ??= options.lines ?? new Lines(process.stdin, process.stderr);
    return own;
  };
  try {
    const config = await loadConfig(configSources(flags.config), {
      workspaceFolder: process.cwd(),
      trustProject: trustDecider(flags, lines),
      ...(options.input === undefined ? {} : { input: options.input }),
    });
    if (options.quiet !== true) printNotices(config);
    return config;
  } finally {
    if (own !== options.lines) own?.close();
  }
}

/** The project files' judge: `--trust-project`, else the recorded digests and, on a terminal, the person. */
function trustDecider(flags: HostConfigFlags, lines: () => Lines): TrustProjectCallback {
  if (flags.trustProject === true) return () => true;
  return new ProjectTrust().decider(atTerminal() ? askTrust(lines) : undefined);
}

function askTrust(lines: () => Lines): (file: ProjectFile, changed: boolean) => Promise<boolean> {
  return async (file, changed) => {
    const one = (text: string) => text.replace(/[\r\n\t]+/g, ' ');
    note(
      `${one(file.path)} ${changed ? 'changed since you trusted it' : 'is a project file (the working folder’s, not yours)'}; it would add these servers:\n${file.servers
        .map((s) => `  ${one(s.name)} (${s.transport}): ${one(s.target)}`)
        .join('\n')}`,
    );
    const answer = await lines().ask(`Trust ${one(file.path)}? [y/N] `);
    return /^y(es)?$/i.test(answer);
  };
}

/** Prints what the person should know about the files read: skipped project files, ignored settings, clashes. */
export function printNotices(config: LoadedConfig): void {
  for (const notice of config.notices ?? []) {
    const hint =
      notice.kind === 'untrusted'
        ? ' (to trust it: answer "y" when mcpkit asks in a terminal, or give --trust-project for one run)'
        : '';
    note(`notice: ${notice.message}${hint}`);
  }
}
