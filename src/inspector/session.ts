import { checkedFetch } from '../auth/client/checked-fetch.js';
import { OAuthClient } from '../auth/client/oauth-client.js';
import { MemoryTokenStore, type TokenStore } from '../auth/client/store.js';
import { Client } from '../client/client.js';
import type { ClientOptions } from '../client/options.js';
import { type ActivityEntry, ActivityLog } from '../host/activity-log.js';
import type { Host } from '../host/host.js';
import { errorMessage } from '../jsonrpc/errors.js';
import { appsClientCapability } from '../spec/apps.js';
import { LATEST_MODERN_REVISION } from '../spec/modern.js';
import type {
  CallToolResult,
  ClientCapabilities,
  Implementation,
  LoggingMessageParams,
  Root,
  ServerCapabilities,
} from '../spec/types.js';
import { STATEFUL_REVISIONS } from '../spec/versions.js';
import type { HttpAuthorizer } from '../transport/http-client/auth-hook.js';
import { HttpClientTransport } from '../transport/http-client/fallback.js';
import { StdioClientTransport } from '../transport/stdio-client.js';
import { InspectorApps } from './apps.js';
import { type AskOutcome, Asks, type PendingAsk } from './asks.js';
import { BadInput } from './bad-input.js';
import { type HostConfiguration, type HostServer, HostTarget } from './host-target.js';
import { Ring } from './ring.js';
import { type PendingSignIn, SignIns } from './sign-in.js';
import { InspectorSkills } from './skills.js';
import { TappedTransport, type TrafficEntry, TrafficRecorder } from './tap.js';
import { describeTarget, type InspectTarget, openTransport } from './target.js';

/** How the person asked to connect: negotiate (`auto`), or one revision pinned by hand. */
export interface EraSelection {
  /** `auto`, or a revision: `2026-07-28` (stateless) or a stateful one. */
  revision: string;
}

/** The connection as the page shows it. No secrets: header values and tokens never appear here. */
export interface ConnectionState {
  /** Increases with each connection attempt (the page reloads its lists when it changes). */
  connection: number;
  status: 'idle' | 'connecting' | 'connected' | 'failed' | 'closed';
  target?: ReturnType<typeof describeTarget>;
  selection: EraSelection;
  /** The revisions the person may pin. */
  revisions: string[];
  error?: string;
  era?: 'stateful' | 'stateless';
  protocolVersion?: string;
  transport?: string;
  serverInfo?: Implementation;
  serverCapabilities?: ServerCapabilities;
  clientCapabilities: ClientCapabilities;
  instructions?: string;
  roots: Root[];
  subscriptions: string[];
  /** A sign-in waiting for the person (OAuth): the page opens `signIn.start`. */
  signIn?: PendingSignIn;
  /** The configured servers the page may pick by name. */
  configured: string[];
  /** Whether a host configuration was given (the page may inspect the host). */
  host: boolean;
  /** The host's servers and their states, once it runs. */
  hostServers?: HostServer[];
}

/** Whose activity log the activity pane shows: the inspector's own calls, or the configured host's log. */
export type ActivitySource = 'inspector' | 'host';

/** A log message from the server (or a line of a spawned server's stderr, level `stderr`). */
export interface LogEntry {
  seq: number;
  time: number;
  level: string;
  logger?: string;
  data: unknown;
}

/** Something the server announced or the connection went through. */
export interface FeedEntry {
  seq: number;
  time: number;
  kind: 'list_changed' | 'resource_updated' | 'notification' | 'stderr' | 'error' | 'closed' | 'connected';
  detail: string;
}

/** Progress of a running tool call. */
export interface ProgressEntry {
  callId: string;
  name: string;
  progress: number;
  total?: number;
  message?: string;
  done?: boolean;
}

/** A tool call started from a page, running or finished: kept, so a page opened later shows how it ended. */
export interface CallEntry {
  callId: string;
  name: string;
  status: 'running' | 'ok' | 'error';
  result?: CallToolResult;
  error?: string;
  /** How long the call took (ms), once it ended. */
  durationMs?: number;
}

/** What the page receives over its event stream. */
export type InspectorEvent =
  | { type: 'state'; state: ConnectionState }
  | { type: 'traffic'; entry: TrafficEntry }
  | { type: 'log'; entry: LogEntry }
  | { type: 'feed'; entry: FeedEntry }
  | { type: 'progress'; entry: ProgressEntry }
  | { type: 'call'; entry: CallEntry }
  | { type: 'ask'; ask: PendingAsk }
  | { type: 'answered'; outcome: AskOutcome }
  | { type: 'activity'; entry: ActivityEntry }
  | { type: 'activity-source'; source: ActivitySource; entries: ActivityEntry[] };

/** Everything a page that (re)opens gets first. */
export interface Snapshot {
  state: ConnectionState;
  traffic: TrafficEntry[];
  logs: LogEntry[];
  feed: FeedEntry[];
  progress: ProgressEntry[];
  /** The running calls and the last finished ones. */
  calls: CallEntry[];
  asks: PendingAsk[];
  activity: ActivityEntry[];
  activitySource: ActivitySource;
}

/** Configured servers the page may connect to by name (the caller resolves a name as its other commands do). */
export interface ConfiguredServers {
  names: readonly string[];
  resolve(name: string): Promise<InspectTarget>;
}

/** Options of an {@link InspectorSession}. */
export interface SessionOptions {
  target?: InspectTarget;
  selection?: EraSelection;
  roots?: Root[];
  clientInfo?: Implementation;
  /** Per-request timeout (ms). Default 60 000; progress restarts it. */
  requestTimeoutMs?: number;
  /** Servers of host configuration files, offered by name in the page. */
  configured?: ConfiguredServers;
  /**
   * A host configuration: the page may inspect the host itself (every configured server through mcpkit's `Host`
   * and its gateway), and the activity pane then shows the host's own activity log.
   */
  host?: HostConfiguration;
  /**
   * Where the inspector's OAuth clients keep tokens and registrations (a URL connected with OAuth on, the host's
   * HTTP servers). Default: in memory, for the inspector's lifetime.
   */
  tokenStore?: TokenStore;
}

/** How many finished calls are kept for pages opened later (their results may be large: images, audio). */
const KEEP_CALLS = 20;

/** How long connecting may take when the person may have to sign in first. */
const SIGN_IN_CONNECT_MS = 300_000;

const CLIENT_CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
  // It renders MCP Apps: servers and the host's gateway offer it the tools only an App calls.
  ...appsClientCapability(),
};

/**
 * The inspector's side of one page: the target, the mcpkit `Client` connected to it (a fresh one per connection,
 * so a revision can be pinned), the person's answers to server requests, and the live panes' recent history.
 */
export class InspectorSession {
  #target: InspectTarget | undefined;
  #selection: EraSelection;
  #roots: Root[];
  readonly #clientInfo: Implementation;
  readonly #timeout: number;
  #client: Client | undefined;
  #generation = 0;
  #seq = 0;
  #state: ConnectionState;
  readonly #subscriptions = new Set<string>();
  readonly #traffic = new Ring<TrafficEntry>(1000);
  readonly #logs = new Ring<LogEntry>(500);
  readonly #feed = new Ring<FeedEntry>(500);
  readonly #progress = new Map<string, ProgressEntry>();
  readonly #calls = new Map<string, AbortController>();
  /** Running and recently finished calls, oldest first. */
  readonly #callEntries = new Map<string, CallEntry>();
  readonly #listeners = new Set<(event: InspectorEvent) => void>();
  readonly #asks: Asks;
  /** The inspector's own activity log (its calls); the pane shows the host's instead while the host is inspected. */
  readonly activity = new ActivityLog({ capacity: 500 });
  #activitySource: ActivitySource = 'inspector';
  #unfollowActivity: () => void;
  readonly #configured: ConfiguredServers | undefined;
  readonly #host: HostTarget | undefined;
  readonly #tokenStore: TokenStore;
  readonly #oauthClients = new Map<string, HttpAuthorizer>();
  readonly #signIns: SignIns | undefined;
  readonly #apps: InspectorApps | undefined;
  /** The Skills tab's actions. */
  readonly skills = new InspectorSkills(this);

  /**
   * @param place the inspector server's origin and port, where the OAuth callback arrives (without it, connecting
   *   with OAuth is refused).
   */
  constructor(options: SessionOptions = {}, place?: { origin: string; port: number }) {
    this.#target = options.target;
    this.#configured = options.configured;
    this.#tokenStore = options.tokenStore ?? new MemoryTokenStore();
    this.#selection = options.selection ?? { revision: 'auto' };
    this.#roots = options.roots ?? [];
    this.#clientInfo = options.clientInfo ?? { name: 'mcpkit-inspector', version: '0.1.0' };
    this.#timeout = options.requestTimeoutMs ?? 60_000;
    this.#state = this.#idleState();
    this.#asks = new Asks(
      (ask) => this.#emit({ type: 'ask', ask }),
      (outcome) => this.#emit({ type: 'answered', outcome }),
    );
    this.#signIns =
      place &&
      new SignIns(place.origin, place.port, (signIn) => {
        const { signIn: _, ...rest } = this.#state;
        this.#setState(signIn === undefined ? rest : { ...rest, signIn });
      });
    this.#apps = place && new InspectorApps(this, place.origin, place.port);
    this.#host =
      options.host &&
      new HostTarget(options.host, {
        asks: this.#asks,
        roots: () => this.#roots,
        signIn: () => this.signIns.grant(),
        tokenStore: this.#tokenStore,
        onstate: (hostServers) => {
          if (this.#target?.kind === 'host') this.#setState({ ...this.#state, hostServers });
        },
      });
    this.#unfollowActivity = this.activity.subscribe((entry) => this.#emit({ type: 'activity', entry }));
  }

  /** The OAuth sign-ins through the page (refused without the inspector's server). */
  get signIns(): SignIns {
    if (!this.#signIns) throw new BadInput('Signing in needs the inspector server (startInspector)');
    return this.#signIns;
  }

  /** The MCP Apps opened in the page (refused without the inspector's server, which serves their frames). */
  get apps(): InspectorApps {
    if (!this.#apps) throw new BadInput('Apps need the inspector server (startInspector)');
    return this.#apps;
  }

  /** The configured host while it is the target (created), else undefined. */
  get inspectedHost(): Host | undefined {
    return this.#target?.kind === 'host' ? this.#host?.host : undefined;
  }

  /** The configured host, when a host configuration was given. */
  get host(): HostTarget | undefined {
    return this.#host;
  }

  /** The target of a configured server's name. */
  async configured(name: string): Promise<InspectTarget> {
    if (!this.#configured?.names.includes(name))
      throw new BadInput(`No configured server ${JSON.stringify(name)}`);
    return this.#configured.resolve(name);
  }

  /** The connection's state now. */
  get state(): ConnectionState {
    return this.#state;
  }

  /** The connected client, or BadInput when there is none. */
  get client(): Client {
    if (!this.#client || this.#state.status !== 'connected') throw new BadInput('Not connected');
    return this.#client;
  }

  /** The person's answers to server requests. */
  get asks(): Asks {
    return this.#asks;
  }

  /** Listens to every event; returns the unsubscribe function. */
  subscribe(listener: (event: InspectorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The state and recent history, for a page that just opened. */
  snapshot(): Snapshot {
    return {
      state: this.#state,
      traffic: this.#traffic.items(),
      logs: this.#logs.items(),
      feed: this.#feed.items(),
      progress: [...this.#progress.values()],
      calls: [...this.#callEntries.values()],
      asks: this.#asks.pending(),
      activity: this.#activityLog().entries(),
      activitySource: this.#activitySource,
    };
  }

  /** Connects (again) to `target` or the current one, with `selection` or the current era choice. */
  async connect(target?: InspectTarget, selection?: EraSelection): Promise<ConnectionState> {
    if (target) this.#target = target;
    if (selection) this.#selection = checkSelection(selection);
    const chosen = this.#target;
    if (!chosen) throw new BadInput('No target to connect to');
    if (chosen.kind === 'host' && !this.#host) throw new BadInput('No host configuration was given');
    await this.disconnect();
    this.#followActivity(chosen.kind === 'host' ? 'host' : 'inspector');
    const generation = ++this.#generation;
    this.#setState({ ...this.#idleState(), status: 'connecting' });
    const recorder = new TrafficRecorder(
      (entry) => this.#push(this.#traffic, { type: 'traffic', entry }, entry),
      () => ++this.#seq,
    );
    // The person may have to sign in before the server answers: the era probe waits for them too (given up after
    // its usual 3 s, the era would fall back to the stateful one for no fault of the server's).
    const signsIn =
      (chosen.kind === 'http' && chosen.oauth === true) ||
      (chosen.kind === 'transport' && chosen.signIn === true);
    const client = new Client(this.#clientInfo, {
      ...this.#clientOptions(generation),
      ...(signsIn ? { probeTimeoutMs: SIGN_IN_CONNECT_MS } : {}),
    });
    this.#client = client;
    const started = performance.now();
    try {
      const opened = await openTransport(chosen, {
        onstderr: (chunk) => this.#note('stderr', chunk.trimEnd()),
        signIn: () => this.signIns.grant(),
        oauthFor: (url, scope) => this.#oauthFor(url, scope),
        host: () => (this.#host as HostTarget).open(),
      });
      if (generation !== this.#generation) {
        await opened.close().catch(() => undefined);
        return this.#state;
      }
      const transport = new TappedTransport(opened, recorder);
      await client.connect(transport, { timeout: signsIn ? SIGN_IN_CONNECT_MS : this.#timeout });
      if (generation !== this.#generation) return this.#state;
      // Every log message, so the page's level filter decides what is shown (the stateless revision sends none
      // unless a request asks for them).
      if (client.serverCapabilities?.logging)
        await client.setLoggingLevel('debug', { timeout: this.#timeout });
      if (generation !== this.#generation) return this.#state;
      const inner = transport.inner;
      this.#setState({
        ...this.#idleState(),
        status: 'connected',
        era: client.era ?? 'stateful',
        transport: transportName(inner, chosen),
        ...defined('protocolVersion', client.protocolVersion),
        ...defined('serverInfo', client.serverInfo),
        ...defined('serverCapabilities', client.serverCapabilities),
        ...defined('instructions', client.instructions),
        ...(chosen.kind === 'host' ? { hostServers: this.#host?.servers() ?? [] } : {}),
      });
      this.#note(
        'connected',
        `${client.serverInfo?.name ?? 'server'} over ${this.#state.transport}, ${client.protocolVersion}`,
      );
      this.#record('ok', performance.now() - started, client.protocolVersion ?? '');
    } catch (e) {
      if (generation !== this.#generation) return this.#state;
      this.#client = undefined;
      await client.close().catch(() => undefined);
      this.#setState({ ...this.#idleState(), status: 'failed', error: errorMessage(e) });
      this.#record('failed', performance.now() - started, errorMessage(e));
    }
    return this.#state;
  }

  /** Closes the connection (open asks are cancelled, running calls aborted). */
  async disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#generation++;
    this.#signIns?.cancelAll('The inspector disconnected');
    this.#asks.cancelAll('The inspector disconnected');
    for (const controller of this.#calls.values()) controller.abort(new Error('The inspector disconnected'));
    this.#subscriptions.clear();
    if (client) {
      await client.close();
      this.#setState({ ...this.#state, status: 'closed', subscriptions: [] });
    }
  }

  /** Replaces the roots offered to the server (announced as a list change on a stateful connection). */
  async setRoots(roots: Root[]): Promise<void> {
    this.#roots = roots;
    if (this.#client && this.#state.status === 'connected') await this.#client.setRoots(roots);
    await this.#host?.setRoots(roots);
    this.#setState({ ...this.#state, roots });
  }

  /** Runs a tool call the page can follow (progress) and cancel by `callId`. */
  async callTool(callId: string, name: string, args: Record<string, unknown>): Promise<unknown> {
    const client = this.client;
    if (this.#calls.has(callId)) throw new BadInput(`Call ${callId} is already running`);
    const controller = new AbortController();
    this.#calls.set(callId, controller);
    const started = performance.now();
    this.#callEntry({ callId, name, status: 'running' });
    try {
      const result = await client.callTool(name, args, {
        signal: controller.signal,
        timeout: this.#timeout,
        onprogress: (p) => {
          const entry: ProgressEntry = { callId, name, progress: p.progress };
          if (p.total !== undefined) entry.total = p.total;
          if (p.message !== undefined) entry.message = p.message;
          this.#progress.set(callId, entry);
          this.#emit({ type: 'progress', entry });
        },
      });
      this.#log('tool', name, args, result.isError ? 'error' : 'ok', started, resultSummary(result.content));
      this.#callEntry({ callId, name, status: 'ok', result, durationMs: performance.now() - started });
      return result;
    } catch (e) {
      this.#log('tool', name, args, 'error', started, errorMessage(e));
      this.#callEntry({
        callId,
        name,
        status: 'error',
        error: errorMessage(e),
        durationMs: performance.now() - started,
      });
      throw e;
    } finally {
      this.#calls.delete(callId);
      const last = this.#progress.get(callId);
      if (last) {
        this.#progress.delete(callId);
        this.#emit({ type: 'progress', entry: { ...last, done: true } });
      }
    }
  }

  /** Records how a call stands and tells the pages; the oldest finished calls past {@link KEEP_CALLS} are dropped. */
  #callEntry(entry: CallEntry): void {
    this.#callEntries.delete(entry.callId);
    this.#callEntries.set(entry.callId, entry);
    for (const [id, old] of this.#callEntries) {
      if (this.#callEntries.size <= KEEP_CALLS) break;
      if (old.status !== 'running') this.#callEntries.delete(id);
    }
    this.#emit({ type: 'call', entry });
  }

  /** Cancels a running tool call. */
  cancel(callId: string): boolean {
    const controller = this.#calls.get(callId);
    controller?.abort(new Error('Cancelled in the inspector'));
    return controller !== undefined;
  }

  /** Records a resource read or prompt in the activity log. */
  log(kind: 'resource' | 'prompt', name: string, args: unknown, outcome: string, started: number): void {
    this.#log(kind, name, args, outcome, started, '');
  }

  /** Subscribes to or unsubscribes from updates of `uri`. */
  async subscription(uri: string, on: boolean): Promise<void> {
    const client = this.client;
    if (on) await client.subscribeResource(uri, { timeout: this.#timeout });
    else await client.unsubscribeResource(uri, { timeout: this.#timeout });
    if (on) this.#subscriptions.add(uri);
    else this.#subscriptions.delete(uri);
    this.#setState({ ...this.#state, subscriptions: [...this.#subscriptions] });
  }

  /** Ends everything: the connection and the listeners. */
  async close(): Promise<void> {
    await this.disconnect();
    await this.#host?.close();
    this.#listeners.clear();
  }

  /** The OAuth client of `url` (and `scope`): one each for the inspector's lifetime, signing in through the page. */
  #oauthFor(url: string, scope: string | undefined): HttpAuthorizer {
    const key = `${url} ${scope ?? ''}`;
    let client = this.#oauthClients.get(key);
    if (!client) {
      client = new OAuthClient({
        grant: this.signIns.grant(),
        store: this.#tokenStore,
        clientMetadata: { client_name: 'mcpkit inspector' },
        checkedFetch: checkedFetch(),
        ...(scope === undefined ? {} : { scope }),
      });
      this.#oauthClients.set(key, client);
    }
    return client;
  }

  #activityLog(): ActivityLog {
    return this.#activitySource === 'host' && this.#host ? this.#host.log : this.activity;
  }

  /** Shows `source`'s activity log in the pane (its entries so far, then live). */
  #followActivity(source: ActivitySource): void {
    if (source === this.#activitySource) return;
    this.#unfollowActivity();
    this.#activitySource = source;
    const log = this.#activityLog();
    this.#unfollowActivity = log.subscribe((entry) => this.#emit({ type: 'activity', entry }));
    this.#emit({ type: 'activity-source', source, entries: log.entries() });
  }

  #clientOptions(generation: number): ClientOptions {
    const current = () => generation === this.#generation;
    const options: ClientOptions = {
      capabilities: CLIENT_CAPABILITIES,
      roots: this.#roots,
      autoRefresh: false,
      sampling: (params, ctx) => this.#asks.sampling(params, ctx.signal),
      elicitation: (params, ctx) => this.#asks.elicitation(params, ctx.signal),
      onlog: (params) => {
        if (current()) this.#serverLog(params);
      },
      onToolsChanged: () => current() && this.#note('list_changed', 'tools'),
      onPromptsChanged: () => current() && this.#note('list_changed', 'prompts'),
      onResourcesChanged: () => current() && this.#note('list_changed', 'resources'),
      onResourceUpdated: (uri) => current() && this.#note('resource_updated', uri),
      onnotification: (n) => current() && this.#note('notification', n.method),
      onerror: (e) => current() && this.#note('error', e.message),
      onclose: (e) => {
        if (!current()) return;
        this.#note('closed', e ? e.message : 'the connection closed');
        this.#client = undefined;
        this.#asks.cancelAll('The connection closed');
        this.#subscriptions.clear();
        this.#setState({
          ...this.#state,
          status: 'closed',
          subscriptions: [],
          ...(e ? { error: e.message } : {}),
        });
      },
    };
    const revision = this.#selection.revision;
    if (revision !== 'auto') options.protocolVersion = revision;
    return options;
  }

  #idleState(): ConnectionState {
    const state: ConnectionState = {
      connection: this.#generation,
      status: 'idle',
      selection: this.#selection,
      revisions: [LATEST_MODERN_REVISION, ...[...STATEFUL_REVISIONS].reverse()],
      clientCapabilities: CLIENT_CAPABILITIES,
      roots: this.#roots,
      subscriptions: [...this.#subscriptions],
      configured: [...(this.#configured?.names ?? [])],
      host: this.#host !== undefined,
    };
    const signIn = this.#signIns?.pending();
    if (signIn) state.signIn = signIn;
    if (this.#target) state.target = describeTarget(this.#target);
    return state;
  }

  #setState(state: ConnectionState): void {
    this.#state = state;
    this.#emit({ type: 'state', state });
  }

  #serverLog(params: LoggingMessageParams): void {
    const entry: LogEntry = { seq: ++this.#seq, time: Date.now(), level: params.level, data: params.data };
    if (params.logger !== undefined) entry.logger = params.logger;
    this.#push(this.#logs, { type: 'log', entry }, entry);
  }

  #note(kind: FeedEntry['kind'], detail: string): void {
    const entry: FeedEntry = { seq: ++this.#seq, time: Date.now(), kind, detail };
    this.#push(this.#feed, { type: 'feed', entry }, entry);
  }

  #record(outcome: string, durationMs: number, summary: string): void {
    // Inspecting the host, the host's own log records the calls (through its gateway): not a second time here.
    if (this.#activitySource === 'host') return;
    const name = this.#state.target?.label ?? '';
    this.activity.record({ kind: 'server', name, outcome, durationMs, summary, ...this.#serverName() });
  }

  #log(
    kind: ActivityEntry['kind'],
    name: string,
    args: unknown,
    outcome: string,
    started: number,
    summary: string,
  ) {
    if (this.#activitySource === 'host') return;
    this.activity.record({
      kind,
      name,
      arguments: args,
      outcome,
      durationMs: performance.now() - started,
      summary,
      ...this.#serverName(),
    });
  }

  #serverName(): { server?: string } {
    const name = this.#state.target?.configured ?? this.#state.serverInfo?.name;
    return name === undefined ? {} : { server: name };
  }

  #push<T>(ring: Ring<T>, event: InspectorEvent, item: T): void {
    ring.push(item);
    this.#emit(event);
  }

  #emit(event: InspectorEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

/** What the page calls the transport: a built one (a command-line target) by what it is, not as `transport`. */
function transportName(inner: unknown, chosen: InspectTarget): string {
  if (inner instanceof HttpClientTransport) return inner.kind;
  if (inner instanceof StdioClientTransport) return 'stdio';
  return chosen.kind === 'transport' ? 'custom' : chosen.kind;
}

/** Refuses a revision this client does not speak. */
function checkSelection(selection: EraSelection): EraSelection {
  const known = ['auto', LATEST_MODERN_REVISION, ...STATEFUL_REVISIONS];
  if (!known.includes(selection.revision))
    throw new BadInput(`Unknown revision ${JSON.stringify(selection.revision)}; known: ${known.join(', ')}`);
  return { revision: selection.revision };
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function resultSummary(content: readonly { type: string; text?: string }[]): string {
  return content
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : `[${b.type}]`))
    .join(' ');
}
