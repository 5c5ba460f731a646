import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's config directory for mcpkit (its tokens, the project files the person trusted, its own config file):
 * `$XDG_CONFIG_HOME/mcpkit` (`~/.config/mcpkit`), `%APPDATA%\mcpkit`, or `~/Library/Application Support/mcpkit`;
 * for this machine unless another platform, home or environment is given.
 */
export function configDir(
  options: {
    platform?: NodeJS.Platform;
    userHome?: string;
    env?: Readonly<Record<string, string | undefined>>;
  } = {},
): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = options.userHome ?? homedir();
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'mcpkit');
  if (platform === 'darwin' && env.XDG_CONFIG_HOME === undefined)
    return join(home, 'Library', 'Application Support', 'mcpkit');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'mcpkit');
}

/**
 * The user's cache folder for mcpkit (what can be rebuilt: the servers' last known tool lists):
 * `$XDG_CACHE_HOME/mcpkit` (`~/.cache/mcpkit`), `%LOCALAPPDATA%\mcpkit\Cache`, or `~/Library/Caches/mcpkit`.
 */
export function cacheDir(): string {
  const env = process.env;
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'mcpkit', 'Cache');
  if (process.platform === 'darwin' && env.XDG_CACHE_HOME === undefined)
    return join(homedir(), 'Library', 'Caches', 'mcpkit');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mcpkit');
}
