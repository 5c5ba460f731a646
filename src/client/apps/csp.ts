// The Content-Security-Policy a host gives an App's document: what its resource declares and nothing looser. A
// declared source that would widen it past one origin (a bare `*`, a scheme, a keyword, plain http off loopback,
// the host's own origin) is left out and reported, never honoured.
import type { AppCsp, AppPermissions } from '../../spec/apps.js';

/** A declared source the host left out of an App's policy, and why. */
export interface RefusedSource {
  /** The `_meta.ui.csp` list it came from (`connectDomains`, …). */
  list: keyof AppCsp;
  source: string;
  reason: string;
}

/** Options of {@link appContentSecurityPolicy}. */
export interface AppCspOptions {
  /** Origins that may embed the App (`frame-ancestors`); none by default. */
  frameAncestors?: readonly string[];
  /** Origins an App may never name, whatever it declares: the host's own (its API, its token's cookie). */
  forbiddenOrigins?: readonly string[];
}

/** The policy header's value, the sources it honoured per list and the ones it refused. */
export interface AppCspDecision {
  policy: string;
  applied: Required<AppCsp>;
  refused: RefusedSource[];
}

const LISTS: readonly (keyof AppCsp)[] = [
  'connectDomains',
  'resourceDomains',
  'frameDomains',
  'baseUriDomains',
];
/** scheme://host[:port] with an optional leading `*.` label; no path, query, quotes or spaces. */
const SOURCE = /^(https|wss|http|ws):\/\/(\*\.)?([a-z0-9-]+(\.[a-z0-9-]+)*|\[::1\])(:\d{1,5})?\/?$/i;
const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;
const MAX_SOURCES = 32;

/**
 * Builds the CSP of an App's document from its resource's `_meta.ui.csp`: `default-src 'none'`, inline scripts and
 * styles (an App is one self-contained document), data: images, fonts and media, and each declared list's origins
 * for its directives (`connect-src`, `frame-src` and `base-uri` are `'none'` when nothing is declared). Never
 * `'self'`: the App's document is served from the host's origin, which it must not reach.
 */
export function appContentSecurityPolicy(declared: unknown, options: AppCspOptions = {}): AppCspDecision {
  const forbidden = new Set((options.forbiddenOrigins ?? []).map((o) => o.toLowerCase().replace(/\/$/, '')));
  const refused: RefusedSource[] = [];
  const applied: Required<AppCsp> = {
    connectDomains: [],
    resourceDomains: [],
    frameDomains: [],
    baseUriDomains: [],
  };
  const csp = typeof declared === 'object' && declared !== null ? (declared as Record<string, unknown>) : {};
  for (const list of LISTS) {
    const sources = csp[list];
    if (sources === undefined) continue;
    if (!Array.isArray(sources)) {
      refused.push({ list, source: String(sources), reason: 'not a list of origins' });
      continue;
    }
    for (const source of sources) {
      const reason = refusal(source, forbidden);
      if (reason !== undefined) refused.push({ list, source: String(source), reason });
      else if (applied[list].length >= MAX_SOURCES)
        refused.push({ list, source: String(source), reason: `more than ${MAX_SOURCES} origins` });
      else applied[list].push((source as string).replace(/\/$/, '').toLowerCase());
    }
  }
  const r = applied.resourceDomains;
  const or = (sources: string[], fallback: string) => (sources.length === 0 ? fallback : sources.join(' '));
  const ancestors = options.frameAncestors?.length ? options.frameAncestors.join(' ') : "'none'";
  const directives = [
    "default-src 'none'",
    `script-src ${["'unsafe-inline'", ...r].join(' ')}`,
    `style-src ${["'unsafe-inline'", ...r].join(' ')}`,
    `img-src ${['data:', 'blob:', ...r].join(' ')}`,
    `font-src ${['data:', ...r].join(' ')}`,
    `media-src ${['data:', 'blob:', ...r].join(' ')}`,
    `connect-src ${or(applied.connectDomains, "'none'")}`,
    `frame-src ${or(applied.frameDomains, "'none'")}`,
    `base-uri ${or(applied.baseUriDomains, "'none'")}`,
    "object-src 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestors}`,
  ];
  return { policy: directives.join('; '), applied, refused };
}

/** Why `source` may not enter an App's policy, or undefined when it is one origin (or one origin's subdomains). */
function refusal(source: unknown, forbidden: Set<string>): string | undefined {
  if (typeof source !== 'string') return 'not a string';
  const m = SOURCE.exec(source);
  if (!m) return 'not an origin (scheme://host[:port]); wildcards, schemes and keywords widen the policy';
  const scheme = (m[1] ?? '').toLowerCase();
  const wildcard = m[2] !== undefined;
  const host = (m[3] ?? '').toLowerCase();
  if ((scheme === 'http' || scheme === 'ws') && !LOOPBACK.test(host))
    return 'plain http and ws only on loopback; use https or wss';
  if (wildcard && !host.includes('.'))
    return 'a wildcard needs a registrable domain under it (*.example.com)';
  const origin = source.replace(/\/$/, '').toLowerCase();
  const normal = origin.replace(/^ws/, 'http');
  if (forbidden.has(origin) || forbidden.has(normal)) return "the host's own origin";
  return undefined;
}

/** The frame's `allow` attribute for the permissions an App asks for: the four the extension names, nothing else. */
export function appFrameAllow(permissions: unknown): string {
  if (typeof permissions !== 'object' || permissions === null) return '';
  const asked = permissions as AppPermissions;
  const features: string[] = [];
  if (asked.camera !== undefined) features.push('camera');
  if (asked.microphone !== undefined) features.push('microphone');
  if (asked.geolocation !== undefined) features.push('geolocation');
  if (asked.clipboardWrite !== undefined) features.push('clipboard-write');
  return features.join('; ');
}
