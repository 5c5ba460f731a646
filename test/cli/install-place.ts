// A temporary home and project folder for the `mcpkit install` tests, and the command run there.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knownConfigLocations } from '../../src/host.js';
import { mcpkit } from './helpers.js';

/**
 * A temporary home and project folder; `env` points the command at them (and sets `PATH` when `path` is given),
 * `where` is a host's config file there, `run` is `mcpkit install …` in the project folder.
 */
export function place(path?: string) {
  const root = mkdtempSync(join(tmpdir(), 'mcpkit-install-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
  const env: Record<string, string> = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
  };
  if (path !== undefined) env.PATH = path;
  const where = (format: string, scope: 'user' | 'project') => {
    const found = knownConfigLocations({ userHome: home, env, workspaceFolder: project }).find(
      (l) => l.format === format && l.scope === scope,
    );
    assert.ok(found);
    return found.path;
  };
  const run = (args: string[]) => mcpkit(['install', ...args], { env, cwd: project });
  return { home, project, env, where, run };
}
