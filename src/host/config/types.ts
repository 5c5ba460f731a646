import type { SandboxSetting } from '../sandbox/policy.js';

/** The config file formats the host reads. */
export type ConfigFormat = 'claude-desktop' | 'claude-code' | 'vscode' | 'cursor' | 'mcpkit';

/** What the host does before a tool runs: run it, refuse it, or ask the person. */
export type ApprovalMode = 'allow' | 'deny' | 'ask';

/**
 * What happens to a tool whose definition changed since it was pinned (first listed with `allow`, or approved):
 * `ask` the person again, showing the change (the default); `refuse` to run it; `accept` it and pin it again (for a
 * server under the person's own development).
 */
export type ToolChangePolicy = 'ask' | 'refuse' | 'accept';

/** How to reach a server: spawn it (stdio), or its URL (Streamable HTTP with legacy fallback, or legacy SSE). */
export type ServerTransportConfig =
  | {
      type: 'stdio';
      command: string;
      args: string[];
      /** Variables the config gives (after expansion and `envFile`), on top of the inherited allow-list. */
      env: Record<string, string>;
      /** The names the config asked for explicitly (its `env` object): they pass even when on the deny-list. */
      namedEnv: string[];
      cwd?: string;
    }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** A server's approval policy: a default for its tools and overrides per tool (by the server's own name). */
export interface ApprovalPolicy {
  default?: ApprovalMode;
  tools?: Record<string, ApprovalMode>;
}

/** One server, whatever file it came from: what the host needs to start and govern it. */
export interface ServerConfig {
  /** The name given in the file (unique within the loaded set; `<name>-project` for a project's entry named like a user's). */
  name: string;
  transport: ServerTransportConfig;
  /** Configured but not to be started. */
  disabled: boolean;
  /**
   * Started only when a tool search or a call needs it, not with the host (its last known tools, kept in the host's
   * tool-list cache, answer searches meanwhile).
   */
  lazy?: boolean;
  /** Whether the server's tool annotations (`readOnlyHint`, …) may decide approvals. */
  trusted: boolean;
  approval?: ApprovalPolicy;
  /** What happens to a tool whose definition changed since it was pinned. Default `ask`. */
  toolChanges?: ToolChangePolicy;
  /** Only these tools (the server's own names) are offered, when given. */
  allowedTools?: string[];
  /** These tools are never offered. */
  disabledTools?: string[];
  /** How long connecting (spawn or reach, and the handshake) may take, in ms. */
  connectTimeoutMs?: number;
  /** Default timeout of each request to this server, in ms. */
  requestTimeoutMs?: number;
  /** A pre-registered OAuth client for an HTTP server (Cursor's `auth` block). */
  oauth?: { clientId?: string; clientSecret?: string; scopes?: string[] };
  /**
   * The sandbox of a stdio server: `true` (the safe preset), `false` (none, even under a host-wide default), or the
   * safe preset with grants; undefined: the host-wide default.
   */
  sandbox?: SandboxSetting;
  /** Where the entry came from (`scope: 'project'`: a project file's, which may only tighten the sandbox). */
  source: { file: string; format: ConfigFormat; scope?: 'project' };
}

/** Host-wide settings an mcpkit config file may carry. */
export interface HostSettings {
  /** Separator between server and tool in qualified names. */
  separator?: string;
  /** Approval mode for tools no policy names. */
  defaultApproval?: ApprovalMode;
  /** The sandbox of stdio servers that set none (`host.sandbox`). */
  sandbox?: SandboxSetting;
}

/**
 * Something the person should know about how the files were read: a project file skipped (`untrusted`, or
 * `unreadable`: it does not parse, so it cannot be shown), settings a project file may not set `ignored`, a project
 * entry named like one of the user's (`clash`), a server defined again in a later file of the same owner, the
 * user's or the project's (`duplicate`: the later entry is used; a command naming the server refuses to pick).
 */
export interface ConfigNotice {
  kind: 'untrusted' | 'unreadable' | 'ignored' | 'clash' | 'duplicate';
  file: string;
  /** The server concerned (its name in the file), when one is. */
  server?: string;
  /** For a `duplicate`: the files defining the server, in the order read (the last one's entry is used). */
  files?: string[];
  message: string;
}

/** The servers read from one or more files. */
export interface LoadedConfig {
  servers: ServerConfig[];
  settings: HostSettings;
  /** The files whose servers or settings were taken, in order. */
  files: string[];
  /** What the person should be told (project files skipped, settings ignored, names that clash). */
  notices?: ConfigNotice[];
}
