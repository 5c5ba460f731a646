// How a server's sandbox is shown to the person (server states, `mcpkit chat`, the inspector, the activity log):
// whether it runs sandboxed, and with what grants and limits.
import { checkSandboxSetting, type SandboxPolicy } from './policy.js';

/** A server's sandbox as shown. */
export interface SandboxView {
  sandboxed: boolean;
  /** `none`, `host` (the host's network) or the hosts allowed through the proxy. */
  network?: 'none' | 'host' | string[];
  read?: string[];
  write?: string[];
  /** What the host made readable by itself: the server's program and working folder. */
  automatic?: string[];
  memoryMb?: number;
  cpuSeconds?: number;
  processes?: number;
  /** One line for a person. */
  summary: string;
}

/** The view of a policy (undefined: not sandboxed), with the reads the host added. */
export function sandboxView(
  policy: SandboxPolicy | undefined,
  automatic: readonly string[] = [],
): SandboxView {
  if (!policy) return { sandboxed: false, summary: 'not sandboxed (runs with your full rights)' };
  const network = Array.isArray(policy.network) ? policy.network.map((h) => h.text) : policy.network;
  const view: SandboxView = {
    sandboxed: true,
    network,
    read: policy.read,
    write: policy.write,
    memoryMb: policy.memoryMb,
    processes: policy.processes,
    summary: '',
  };
  if (automatic.length > 0) view.automatic = [...automatic];
  if (policy.cpuSeconds !== undefined) view.cpuSeconds = policy.cpuSeconds;
  view.summary = summarize(view);
  return view;
}

/**
 * A short line for a setting as written (`mcpkit config list`): `off`, `safe preset`, `safe preset + ` what it
 * grants or sets, or `invalid: …` with what is wrong with it.
 */
export function settingSummary(value: unknown): string {
  if (value === undefined) return 'off';
  const checked = checkSandboxSetting(value);
  if ('problems' in checked) {
    const p = checked.problems[0];
    return `invalid: ${p?.field ? `${p.field}: ` : ''}${p?.message ?? ''}`;
  }
  const g = checked.setting;
  if (g === false) return 'off';
  if (g === true) return 'safe preset';
  const grants = [
    g.network === true ? 'full network' : Array.isArray(g.network) ? `network ${g.network.join(', ')}` : '',
    g.read ? `read ${g.read.join(', ')}` : '',
    g.write ? `write ${g.write.join(', ')}` : '',
    g.memoryMb === undefined ? '' : `memory ${g.memoryMb} MB`,
    g.processes === undefined ? '' : `${g.processes} processes`,
    g.cpuSeconds === undefined ? '' : `cpu ${g.cpuSeconds} s`,
  ].filter(Boolean);
  return grants.length === 0 ? 'safe preset' : `safe preset + ${grants.join('; ')}`;
}

function summarize(v: SandboxView): string {
  const parts = [
    `network ${v.network === 'none' ? 'none' : v.network === 'host' ? 'full' : (v.network ?? []).join(', ')}`,
  ];
  if (v.read && v.read.length > 0) parts.push(`read ${v.read.join(', ')}`);
  if (v.write && v.write.length > 0) parts.push(`write ${v.write.join(', ')}`);
  parts.push(`memory ${v.memoryMb} MB`, `${v.processes} processes`);
  if (v.cpuSeconds !== undefined) parts.push(`cpu ${v.cpuSeconds} s`);
  return `sandboxed: ${parts.join('; ')}`;
}
