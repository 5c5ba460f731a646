import type { AuthorizationCodeGrant } from '../auth/client/options.js';
import type { TokenStore } from '../auth/client/store.js';
import type { ActivityLog } from '../host/activity-log.js';
import type { LoadedConfig, ServerConfig } from '../host/config/types.js';
import type { ServerStatus } from '../host/connection.js';
import { Host } from '../host/host.js';
import type { HostOptions } from '../host/options.js';
import type { Transport } from '../protocol/transport.js';
import type { McpServer } from '../server/server.js';
import type { Root } from '../spec/types.js';
import { createLinkedTransports } from '../transport/memory.js';
import type { Asks } from './asks.js';

/** A host configuration to inspect: its servers run through mcpkit's `Host`. */
export interface HostConfiguration {
  /** The loaded config files (or the servers). */
  config: LoadedConfig | readonly ServerConfig[];
  /**
   * The host's options. The inspector answers the servers' sampling and elicitation requests through the page
   * (unless these options say otherwise), offers its roots, and signs in to HTTP servers through the page (unless
   * `oauth` or `authFor` is given).
   */
  options?: HostOptions;
}

/** What the page shows of the host's servers: the state, and for a stdio server whether and how it is sandboxed. */
export type HostServer = Pick<ServerStatus, 'name' | 'state' | 'reason'> & {
  sandbox?: { sandboxed: boolean; summary: string };
};

/** How long each of the host's servers may take to become ready: a person may have to sign in to it first. */
const CONNECT_TIMEOUT_MS = 300_000;

/**
 * The configured host as a target: created and started on first use, kept running across the inspector's
 * reconnections (the inspector connects to its gateway, `host.toServer()`, over an in-memory link), stopped when
 * the inspector closes. The inspector connects at once: the servers come up in the background (the page shows each
 * one's state, and its tools, prompts and resources appear as it becomes ready), so a slow server, or one waiting
 * for the person to sign in through the page, holds up nothing else.
 */
export class HostTarget {
  readonly #spec: HostConfiguration;
  readonly #make: () => HostOptions;
  readonly #onstate: (servers: HostServer[]) => void;
  #host: Host | undefined;
  #gateway: McpServer | undefined;
  #started: Promise<unknown> | undefined;

  /**
   * @param links what the host gets from the inspector: the person's answers, the roots, the sign-in grant and
   *   token store, and a listener of its servers' states.
   */
  constructor(
    spec: HostConfiguration,
    links: {
      asks: Asks;
      roots: () => Root[];
      signIn: () => AuthorizationCodeGrant;
      tokenStore: TokenStore;
      onstate: (servers: HostServer[]) => void;
    },
  ) {
    this.#spec = spec;
    this.#make = () => {
      const given = spec.options ?? {};
      const options: HostOptions = {
        clientInfo: { name: 'mcpkit-inspector-host', version: '0.1.0' },
        sampling: (params, ctx) => links.asks.sampling(params, ctx.signal),
        elicitation: (params, ctx) => links.asks.elicitation(params, ctx.signal),
        roots: links.roots(),
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        ...given,
      };
      if (given.oauth === undefined && given.authFor === undefined)
        options.oauth = { grant: links.signIn(), store: links.tokenStore };
      return options;
    };
    this.#onstate = links.onstate;
  }

  /** The configured servers' names. */
  get names(): string[] {
    const config = this.#spec.config;
    return (Array.isArray(config) ? config : (config as LoadedConfig).servers).map((s) => s.name);
  }

  /** The host, once created. */
  get host(): Host | undefined {
    return this.#host;
  }

  /** The host's activity log (creating the host, not starting it). */
  get log(): ActivityLog {
    return this.#ensure().log;
  }

  /** The host's servers and their states (empty before it was created). */
  servers(): HostServer[] {
    return (this.#host?.servers ?? []).map(({ name, state, reason, sandbox }) => ({
      name,
      state,
      ...(reason === undefined ? {} : { reason }),
      ...(sandbox === undefined
        ? {}
        : { sandbox: { sandboxed: sandbox.sandboxed, summary: sandbox.summary } }),
    }));
  }

  /** A transport to the host's gateway; the host's servers are started (once) in the background. */
  async open(): Promise<Transport> {
    const host = this.#ensure();
    // Never rejects: each server ends ready, failed or disabled, its state shown in the page.
    this.#started ??= host.start();
    this.#gateway ??= host.toServer({
      info: { name: 'mcpkit-inspector-host', version: '0.1.0' },
      instructions: `The configured host: ${this.names.join(', ')}. Tools, prompts and resources carry their server's name.`,
    });
    const [clientSide, serverSide] = createLinkedTransports();
    await this.#gateway.connect(serverSide);
    return clientSide;
  }

  /** Passes the inspector's roots to the host's servers. */
  async setRoots(roots: Root[]): Promise<void> {
    await this.#host?.setRoots(roots);
  }

  /** Stops the host's servers. */
  async close(): Promise<void> {
    await this.#gateway?.close();
    await this.#host?.close();
  }

  #ensure(): Host {
    if (this.#host) return this.#host;
    const host = new Host(this.#spec.config, this.#make());
    host.on('state', () => this.#onstate(this.servers()));
    this.#host = host;
    return host;
  }
}
