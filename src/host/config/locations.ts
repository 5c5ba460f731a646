import { homedir } from 'node:os';
import { join } from 'node:path';
import { configDir } from './config-dir.js';
import type { ConfigFormat } from './types.js';

/** A place a host application keeps its MCP servers. */
export interface ConfigLocation {
  format: ConfigFormat;
  /** Which application and scope (`user` or `project`). */
  app: 'Claude Desktop' | 'Claude Code' | 'VS Code' | 'Cursor' | 'mcpkit';
  scope: 'user' | 'project';
  path: string;
}

const APP_OF: Readonly<Record<ConfigFormat, ConfigLocation['app']>> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  vscode: 'VS Code',
  cursor: 'Cursor',
  mcpkit: 'mcpkit',
};

/** The application whose format `format` is. */
export function appOf(format: ConfigFormat): ConfigLocation['app'] {
  return APP_OF[format];
}

/** Where to look; every field defaults to this machine's. */
export interface LocationOptions {
  platform?: NodeJS.Platform;
  userHome?: string;
  env?: Readonly<Record<string, string | undefined>>;
  workspaceFolder?: string;
}

/**
 * The known config locations of this platform, user files first (mcpkit's own last: `<config dir>/mcpkit.json`, whose
 * entries without command or url change the servers of the files before it) and project files after them (a project's files
 * are the working folder's: loaded with `scope: 'project'`, they are untrusted until the person says so, see
 * {@link loadConfig}). Files that do not exist are listed too.
 */
export function knownConfigLocations(options: LocationOptions = {}): ConfigLocation[] {
  const platform = options.platform ?? process.platform;
  const home = options.userHome ?? homedir();
  const env = options.env ?? process.env;
  const p = platform === 'win32' ? join : (...parts: string[]) => parts.join('/');
  const desktopDir =
    platform === 'darwin'
      ? p(home, 'Library', 'Application Support', 'Claude')
      : platform === 'win32'
        ? p(env.APPDATA ?? p(home, 'AppData', 'Roaming'), 'Claude')
        : p(env.XDG_CONFIG_HOME ?? p(home, '.config'), 'Claude');
  const codeUser =
    platform === 'darwin'
      ? p(home, 'Library', 'Application Support', 'Code', 'User')
      : platform === 'win32'
        ? p(env.APPDATA ?? p(home, 'AppData', 'Roaming'), 'Code', 'User')
        : p(env.XDG_CONFIG_HOME ?? p(home, '.config'), 'Code', 'User');
  const out: ConfigLocation[] = [
    {
      format: 'claude-desktop',
      app: 'Claude Desktop',
      scope: 'user',
      path: p(desktopDir, 'claude_desktop_config.json'),
    },
    { format: 'claude-code', app: 'Claude Code', scope: 'user', path: p(home, '.claude.json') },
    { format: 'vscode', app: 'VS Code', scope: 'user', path: p(codeUser, 'mcp.json') },
    { format: 'cursor', app: 'Cursor', scope: 'user', path: p(home, '.cursor', 'mcp.json') },
    // Last of the person's files: its entries without command or url change the servers of the files above.
    {
      format: 'mcpkit',
      app: 'mcpkit',
      scope: 'user',
      path: p(configDir({ platform, userHome: home, env }), 'mcpkit.json'),
    },
  ];
  const ws = options.workspaceFolder;
  if (ws !== undefined) {
    out.push(
      { format: 'claude-code', app: 'Claude Code', scope: 'project', path: p(ws, '.mcp.json') },
      { format: 'vscode', app: 'VS Code', scope: 'project', path: p(ws, '.vscode', 'mcp.json') },
      { format: 'cursor', app: 'Cursor', scope: 'project', path: p(ws, '.cursor', 'mcp.json') },
      { format: 'mcpkit', app: 'mcpkit', scope: 'project', path: p(ws, 'mcpkit.json') },
    );
  }
  return out;
}
