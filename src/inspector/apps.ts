// The inspector's side of MCP Apps: an App's document read from the server (refused without the App MIME type),
// served to its frame from /app-frame/<id> under the CSP it declares (nothing looser, never the inspector's own
// origin) in a sandbox without same-origin, and its tool calls held for the person's approval before they run.
import { randomBytes } from 'node:crypto';
import { appContentSecurityPolicy, appFrameAllow, type RefusedSource } from '../client/apps/csp.js';
import { AppPolicy } from '../client/apps/policy.js';
import { appDocumentOf } from '../client/apps/resource.js';
import type { Client } from '../client/client.js';
import type { Host } from '../host/host.js';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors.js';
import { appResourceUriOf } from '../spec/apps.js';
import type { CallToolResult, ReadResourceResult, Tool } from '../spec/types.js';
import type { Asks } from './asks.js';
import { BadInput } from './bad-input.js';

/** Where App frames are served (behind the inspector's token, like the page). */
export const APP_FRAME_PATH = '/app-frame/';

/** What the page needs to render an opened App. */
export interface OpenedApp {
  id: string;
  uri: string;
  /** The frame's `src`. */
  src: string;
  /** The Content-Security-Policy its document is served with. */
  csp: string;
  /** Declared sources left out of that policy, with why. */
  refused: RefusedSource[];
  /** The frame's `allow` attribute (permissions it asked for). */
  allow: string;
  prefersBorder?: boolean;
  /** What the host applied, for the App's `hostCapabilities.sandbox`. */
  sandbox: { csp: Record<string, string[]>; permissions: unknown };
}

interface AppEntry {
  uri: string;
  html: string;
  policy: string;
  client: Client;
  rules: AppPolicy;
  /** The name to call the App's tool `name` by (on the configured host, qualified to the App's server). */
  qualify: (name: string) => string;
}

/** What the Apps need of the inspector session. */
export interface AppsHost {
  readonly client: Client;
  readonly asks: Asks;
  /** The configured host while it is the target: an App's calls then go to its own server's tools. */
  readonly inspectedHost: Host | undefined;
  callTool(callId: string, name: string, args: Record<string, unknown>): Promise<unknown>;
}

/** Apps kept open at once; the oldest is forgotten past it (its frame then answers 404 and its calls are refused). */
const MAX_APPS = 16;
/** How long an App's tool call waits for the person before it is given up. */
const APPROVAL_WAIT_MS = 600_000;
/** The `sandbox` directive every App document carries, whatever embeds it: scripts, an opaque origin. */
const SANDBOX = 'sandbox allow-scripts';

/** The Apps opened in one inspector: their documents, policies and approvals. */
export class InspectorApps {
  readonly #entries = new Map<string, AppEntry>();
  readonly #host: AppsHost;
  readonly #origin: string;
  readonly #forbidden: string[];
  #calls = 0;

  /** @param origin the inspector's origin: the only one that may embed an App, and one no App may name. */
  constructor(host: AppsHost, origin: string, port: number) {
    this.#host = host;
    this.#origin = origin;
    this.#forbidden = [origin, `http://localhost:${port}`, `http://[::1]:${port}`];
  }

  /**
   * Reads App `uri` from the connected server and keeps it for its frame. `tool` is the tool whose result it renders
   * (on the configured host, its qualified name says which server the App is of).
   */
  async open(uri: string, tool?: string): Promise<OpenedApp> {
    const client = this.#host.client;
    const host = this.#host.inspectedHost;
    const tools = host ? appServerTools(host, uri, tool) : undefined;
    const result = await client.readResource(uri);
    // The listing's `_meta.ui` stands in only when the content carries none (one round trip saved otherwise).
    const own = result.contents.find((c) => c.uri === uri)?._meta?.ui;
    const listed = own === undefined ? (await client.listResources()).find((r) => r.uri === uri) : undefined;
    const doc = appDocumentOf(uri, result, listed);
    const decision = appContentSecurityPolicy(doc.meta.csp, {
      frameAncestors: [this.#origin],
      forbiddenOrigins: this.#forbidden,
    });
    const id = randomBytes(16).toString('base64url');
    // Tools the person allowed for as long as this App is open (an App that polls would otherwise ask each time).
    const allowed = new Set<string>();
    // One question at a time per App: a call made while another waits is decided after it (then maybe allowed).
    let asking: Promise<unknown> = Promise.resolve();
    const rules = new AppPolicy({
      app: uri,
      tools: () => (tools ? tools().map((t) => t.tool) : client.listTools()),
      approve: (call) => {
        const verdict = asking.then(async () => {
          if (allowed.has(call.name)) return true;
          const answer = await this.#host.asks.appTool(call, AbortSignal.timeout(APPROVAL_WAIT_MS));
          if (answer === 'app') allowed.add(call.name);
          return answer !== 'deny';
        });
        asking = verdict.catch(() => undefined);
        return verdict;
      },
    });
    const qualify = (name: string) => {
      if (!tools) return name;
      const found = tools().find((t) => t.tool.name === name);
      if (!found) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name)}`);
      return found.name;
    };
    this.#entries.set(id, {
      uri,
      html: doc.html,
      policy: `${decision.policy}; ${SANDBOX}`,
      client,
      rules,
      qualify,
    });
    for (const old of this.#entries.keys()) {
      if (this.#entries.size <= MAX_APPS) break;
      this.#entries.delete(old);
    }
    return {
      id,
      uri,
      src: `${APP_FRAME_PATH}${id}`,
      csp: `${decision.policy}; ${SANDBOX}`,
      refused: decision.refused,
      allow: appFrameAllow(doc.meta.permissions),
      ...(typeof doc.meta.prefersBorder === 'boolean' ? { prefersBorder: doc.meta.prefersBorder } : {}),
      sandbox: { csp: decision.applied, permissions: doc.meta.permissions ?? {} },
    };
  }

  /** The document and policy of frame `id`, if it is open. */
  frame(id: string): { html: string; policy: string } | undefined {
    return this.#entries.get(id);
  }

  /** An App's `tools/call`: the App's server still connected, the policy, the person's approval, then the call. */
  async call(id: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const entry = this.#live(id);
    await entry.rules.toolCall(name, args);
    // Through the session's client, as the person's own calls: on the configured host, its gateway's approval too.
    return (await this.#host.callTool(`app-${++this.#calls}`, entry.qualify(name), args)) as CallToolResult;
  }

  /** An App's `resources/read` of its server. */
  async read(id: string, uri: string): Promise<ReadResourceResult> {
    return this.#live(id).client.readResource(uri);
  }

  /** The URL an App asks to open, checked (the page then asks the person). */
  link(id: string, url: unknown): string {
    return this.#live(id).rules.link(url);
  }

  #live(id: string): AppEntry {
    const entry = this.#entries.get(id);
    if (!entry) throw new BadInput('No such App (closed, or too many opened since)');
    if (entry.client !== this.#host.client) throw new BadInput("The App's server is no longer connected");
    return entry;
  }
}

/**
 * On the configured host, the tools of App `uri`'s server (under their own names, with the qualified name to call
 * them by): the server of `tool` when that tool names the App, else of a tool naming it, else the one serving `uri`.
 */
function appServerTools(
  host: Host,
  uri: string,
  tool: string | undefined,
): () => { name: string; tool: Tool }[] {
  const registry = host.registry;
  const opener = tool === undefined ? undefined : registry.tool(tool);
  const server =
    (opener && appResourceUriOf(opener.tool) === uri ? opener.server : undefined) ??
    registry.tools().find((t) => appResourceUriOf(t.tool) === uri)?.server ??
    registry.ownerOf(uri);
  if (server === undefined) throw new BadInput(`No server of the host serves the App ${uri}`);
  return () => registry.tools().filter((t) => t.server === server);
}
