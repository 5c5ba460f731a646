import type { AuthorizationCodeGrant } from '../auth/client/options.js';
import { SandboxedStdioTransport } from '../host/sandbox/sandboxed-transport.js';
import type { Transport } from '../protocol/transport.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import { HttpClientTransport } from '../transport/http-client/fallback.js';
import { StdioClientTransport } from '../transport/stdio-client.js';

/**
 * What the inspector connects to: a command spawned over stdio, an HTTP URL (Streamable HTTP with the legacy
 * fallback) with extra headers and optionally OAuth (the person signs in through the page), any transport the
 * caller builds (a configured server), or the configured host (its gateway: every configured server at once, run
 * by mcpkit's `Host`).
 */
export type InspectTarget =
  | { kind: 'stdio'; command: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string }
  | {
      kind: 'http';
      url: string;
      headers?: Record<string, string>;
      /** Sign in through the page when the server asks (OAuth), asking for `scope` besides what it challenges. */
      oauth?: boolean;
      scope?: string;
    }
  | {
      kind: 'transport';
      /** What the page shows for it (no secrets). */
      label: string;
      /**
       * A fresh, unstarted transport for each (re)connection; `signIn` is the grant of an OAuth client whose sign-in
       * goes through the page (the inspector's own callback).
       */
      open: (signIn: AuthorizationCodeGrant) => Transport;
      /** The server's name in a host configuration, when it came from one. */
      configured?: string;
      /** Whether the person may have to sign in (connecting then waits up to 5 minutes). */
      signIn?: boolean;
    }
  | { kind: 'host' };

/** What opening a transport may need from the inspector. */
export interface TargetLinks {
  /** Receives a spawned server's stderr. */
  onstderr: (chunk: string) => void;
  /** The grant of OAuth clients signing in through the page. */
  signIn: () => AuthorizationCodeGrant;
  /** The OAuth client of a URL connected with OAuth on (one per URL, kept across reconnections). */
  oauthFor: (url: string, scope: string | undefined) => HttpAuthorizer;
  /** A transport to the configured host's gateway. */
  host: () => Promise<Transport>;
}

/** A fresh transport to `target`. */
export function openTransport(target: InspectTarget, links: TargetLinks): Transport | Promise<Transport> {
  const onstderr = links.onstderr;
  switch (target.kind) {
    case 'stdio': {
      const transport = new StdioClientTransport({
        command: target.command,
        ...(target.args === undefined ? {} : { args: target.args }),
        ...(target.env === undefined ? {} : { env: target.env }),
        ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
        stderr: 'pipe',
      });
      transport.onstderr = onstderr;
      return transport;
    }
    case 'http':
      return new HttpClientTransport(target.url, {
        ...(target.headers === undefined ? {} : { headers: target.headers }),
        ...(target.oauth === true ? { auth: links.oauthFor(target.url, target.scope) } : {}),
      });
    case 'transport': {
      const transport = target.open(links.signIn());
      if (transport instanceof StdioClientTransport || transport instanceof SandboxedStdioTransport)
        transport.onstderr = onstderr;
      return transport;
    }
    case 'host':
      return links.host();
  }
}

/** A description of `target` for the page: header values are never included (they may carry tokens). */
export function describeTarget(target: InspectTarget): {
  kind: InspectTarget['kind'];
  label: string;
  headerNames?: string[];
  configured?: string;
  oauth?: boolean;
} {
  switch (target.kind) {
    case 'stdio':
      return { kind: 'stdio', label: [target.command, ...(target.args ?? [])].map(quoteArg).join(' ') };
    case 'http':
      return {
        kind: 'http',
        label: target.url,
        headerNames: Object.keys(target.headers ?? {}),
        ...(target.oauth === true ? { oauth: true } : {}),
      };
    case 'transport':
      return {
        kind: 'transport',
        label: target.label,
        ...(target.configured === undefined ? {} : { configured: target.configured }),
      };
    case 'host':
      return { kind: 'host', label: 'the configured host (every server, through its gateway)' };
  }
}

function quoteArg(arg: string): string {
  return /^[\w./:=@%+-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

/**
 * Splits a command line typed in the page into words: whitespace separates, single and double quotes group, a
 * backslash escapes the next character outside single quotes. Throws on an unterminated quote.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`Unterminated ${quote} quote in the command`);
  if (inWord) words.push(word);
  return words;
}
