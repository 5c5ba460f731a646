// Which sandbox a configured server gets: its own setting, else the host-wide default; refused when it cannot apply
// (a URL server, a setting that does not check); a project file's server never gets less than the default.
import { McpkitError } from '../../jsonrpc/errors.js';
import type { ServerConfig } from '../config/types.js';
import {
  checkSandboxSetting,
  isNoLooserThan,
  resolveSandbox,
  type SandboxPolicy,
  type SandboxSetting,
} from './policy.js';

/** A server's sandbox: its policy (none: not sandboxed), or why it cannot start, and what the person should know. */
export interface SandboxDecision {
  policy?: SandboxPolicy;
  /** Set when the server is configured sandboxed but cannot be: it must not start. */
  refused?: McpkitError;
  /** Whether the server's own setting sandboxes it (a host-wide default does not apply to an app's own transport). */
  own: boolean;
  notes: string[];
}

/** Decides a server's sandbox under the host-wide default (already checked). */
export function decideSandbox(
  config: ServerConfig,
  hostDefault: SandboxSetting | undefined,
): SandboxDecision {
  const own = config.sandbox;
  const notes: string[] = [];
  if (config.transport.type !== 'stdio') {
    if (own !== undefined && own !== false)
      return refused(
        `"${config.name}" is reached by URL: a sandbox applies to a server the host starts (stdio)`,
      );
    return { own: false, notes };
  }
  if (own !== undefined) {
    // An app's object is checked here as a config file's is when read.
    const checked = checkSandboxSetting(own);
    if ('problems' in checked) {
      const p = checked.problems[0];
      return refused(
        `the sandbox of "${config.name}"${p?.field ? `, ${p.field}` : ''}: ${p?.message ?? 'invalid'}`,
      );
    }
  }
  const base = resolveSandbox(undefined, hostDefault);
  if (config.source.scope === 'project' && base) {
    const mine = own === false ? undefined : resolveSandbox(own, hostDefault);
    if (!mine || !isNoLooserThan(mine, base)) {
      notes.push(
        `"${config.name}" comes from a project file, whose sandbox may only be tighter than yours: its own setting is ignored, the host's default applies`,
      );
      return { policy: base, own: false, notes };
    }
    return { policy: mine, own: own !== undefined, notes };
  }
  const policy = resolveSandbox(own, hostDefault);
  return policy ? { policy, own: own !== undefined && own !== false, notes } : { own: false, notes };
}

function refused(message: string): SandboxDecision {
  return { refused: new McpkitError('CONFIG_INVALID', message), own: true, notes: [] };
}
