// The host page's end of an App's postMessage JSON-RPC (ext-apps 2026-01-26): initialization with the host's context,
// tool input and result notifications, the App's server requests handed to the host, size changes, links. Messages
// from any window but the App's frame are ignored. Runtime-neutral: a browser page gives it `window` and the frame.
import { ErrorCode, errorMessage, JsonRpcError } from '../../jsonrpc/errors.js';
import { APPS_PROTOCOL_VERSION } from '../../spec/apps.js';
import type { CallToolResult, Implementation, ReadResourceResult } from '../../spec/types.js';

/** What the bridge posts to: the App frame's window (`iframe.contentWindow`). */
export interface AppWindow {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** A `message` event as the bridge reads it. */
export interface AppMessageEvent {
  source: unknown;
  data: unknown;
}

/** Where the bridge listens: the host page's `window`. */
export interface AppMessageTarget {
  addEventListener(type: 'message', listener: (event: AppMessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: AppMessageEvent) => void): void;
}

/** What the host does for the App; each may throw a `JsonRpcError` to answer the App with it. */
export interface AppFrameHandlers {
  /** The App's `tools/call`: the host's policy and approval, then the server. */
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The App's `resources/read` of its server. */
  readResource(uri: string): Promise<ReadResourceResult>;
  /** `ui/open-link`: put to the person; true when opened. */
  openLink(url: string): Promise<boolean>;
  /** `ui/notifications/size-changed`. */
  onsize?(size: { width?: number; height?: number }): void;
  /** `notifications/message` (the App's log). */
  onlog?(params: Record<string, unknown>): void;
  /** `ui/notifications/initialized`: the App is ready. */
  oninitialized?(appInfo: unknown): void;
}

/** Options of {@link AppFrame}. */
export interface AppFrameOptions {
  /** The App frame's window, read at each post (the frame may not have loaded yet). */
  frame: () => AppWindow | null | undefined;
  /** The host page's window. */
  listener: AppMessageTarget;
  hostInfo: Implementation;
  /** `hostContext` of the initialize result: theme, `toolInfo`, display mode, … */
  hostContext?: Record<string, unknown>;
  /** What the host tells the App it applied (`hostCapabilities.sandbox`). */
  sandbox?: { csp?: unknown; permissions?: unknown };
  handlers: AppFrameHandlers;
  /** How long a request to the App (teardown) waits; 5 s by default. */
  timeoutMs?: number;
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: unknown };

/** Notifications and requests the App receives, sent once it says it is initialized. */
const TOOL_INPUT = 'ui/notifications/tool-input';
const TOOL_RESULT = 'ui/notifications/tool-result';

/**
 * The host side of one rendered App. Construct it before the frame loads; it answers `ui/initialize`, then sends
 * what {@link toolInput} and {@link toolResult} were given (queued until the App is initialized). Only messages whose
 * `source` is the frame's window are read.
 */
export class AppFrame {
  readonly #options: AppFrameOptions;
  readonly #listener: (event: AppMessageEvent) => void;
  readonly #queue: { method: string; params: unknown }[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #initialized = false;
  #closed = false;

  constructor(options: AppFrameOptions) {
    this.#options = options;
    this.#listener = (event) => this.#receive(event);
    options.listener.addEventListener('message', this.#listener);
  }

  /** True once the App sent `ui/notifications/initialized`. */
  get initialized(): boolean {
    return this.#initialized;
  }

  /** Sends the tool's complete arguments (`ui/notifications/tool-input`). */
  toolInput(args: Record<string, unknown>): void {
    this.#notifyWhenReady(TOOL_INPUT, { arguments: args });
  }

  /** Sends the tool's result (`ui/notifications/tool-result`). */
  toolResult(result: CallToolResult): void {
    this.#notifyWhenReady(TOOL_RESULT, result);
  }

  /** Tells the App its tool call was cancelled. */
  toolCancelled(reason?: string): void {
    this.#notifyWhenReady('ui/notifications/tool-cancelled', reason === undefined ? {} : { reason });
  }

  /** Tells the App what changed of the host's context. */
  hostContextChanged(changes: Record<string, unknown>): void {
    this.#notifyWhenReady('ui/notifications/host-context-changed', changes);
  }

  /** Asks the App to tear down (`ui/resource-teardown`) and waits for its answer, then stops listening. */
  async teardown(): Promise<void> {
    try {
      if (this.#initialized) await this.#request('ui/resource-teardown', {});
    } finally {
      this.close();
    }
  }

  /** Stops listening; requests waiting on the App fail. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#options.listener.removeEventListener('message', this.#listener);
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(new Error('The App frame was closed'));
    }
  }

  #receive(event: AppMessageEvent): void {
    // Another frame (or the page itself) may post anything: only the App's own window speaks for it.
    const frame = this.#options.frame();
    if (this.#closed || !frame || event.source !== frame) return;
    const message = event.data;
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return;
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    if (m.jsonrpc !== '2.0') return;
    const hasId = typeof m.id === 'string' || typeof m.id === 'number';
    if (typeof m.method === 'string') {
      const params =
        typeof m.params === 'object' && m.params !== null ? (m.params as Record<string, unknown>) : {};
      if (hasId) void this.#answer(m.id as string | number, m.method, params);
      else this.#notification(m.method, params);
      return;
    }
    if (typeof m.id === 'number') this.#response(m.id, message as { result?: unknown; error?: unknown });
  }

  async #answer(id: string | number, method: string, params: Record<string, unknown>): Promise<void> {
    try {
      const result = await this.#serve(method, params);
      this.#post({ jsonrpc: '2.0', id, result });
    } catch (e) {
      const error =
        e instanceof JsonRpcError
          ? { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) }
          : { code: ErrorCode.InternalError, message: errorMessage(e) };
      this.#post({ jsonrpc: '2.0', id, error });
    }
  }

  async #serve(method: string, params: Record<string, unknown>): Promise<unknown> {
    const handlers = this.#options.handlers;
    switch (method) {
      case 'ui/initialize':
        return {
          protocolVersion: APPS_PROTOCOL_VERSION,
          hostInfo: this.#options.hostInfo,
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            ...(this.#options.sandbox ? { sandbox: this.#options.sandbox } : {}),
          },
          hostContext: this.#options.hostContext ?? {},
        };
      case 'ping':
        return {};
      case 'tools/call': {
        const name = params.name;
        if (typeof name !== 'string')
          throw new JsonRpcError(ErrorCode.InvalidParams, 'tools/call needs a name');
        const args = params.arguments;
        const object = typeof args === 'object' && args !== null && !Array.isArray(args);
        return handlers.callTool(name, object ? (args as Record<string, unknown>) : {});
      }
      case 'resources/read': {
        if (typeof params.uri !== 'string')
          throw new JsonRpcError(ErrorCode.InvalidParams, 'resources/read needs a uri');
        return handlers.readResource(params.uri);
      }
      case 'ui/open-link': {
        if (typeof params.url !== 'string')
          throw new JsonRpcError(ErrorCode.InvalidParams, 'ui/open-link needs a url');
        return (await handlers.openLink(params.url)) ? {} : { isError: true };
      }
      case 'ui/request-display-mode':
        return { mode: 'inline' };
      case 'ui/message':
      case 'ui/update-model-context':
      case 'ui/download-file':
        // No conversation to add to here: the App is told so rather than left waiting.
        return { isError: true };
      default:
        throw new JsonRpcError(ErrorCode.MethodNotFound, `The host does not serve ${method} to Apps`);
    }
  }

  #notification(method: string, params: Record<string, unknown>): void {
    const handlers = this.#options.handlers;
    if (method === 'ui/notifications/initialized') {
      if (this.#initialized) return;
      this.#initialized = true;
      handlers.oninitialized?.(params);
      for (const queued of this.#queue.splice(0)) this.#post({ jsonrpc: '2.0', ...queued });
    } else if (method === 'ui/notifications/size-changed') {
      const size: { width?: number; height?: number } = {};
      if (typeof params.width === 'number' && Number.isFinite(params.width)) size.width = params.width;
      if (typeof params.height === 'number' && Number.isFinite(params.height)) size.height = params.height;
      handlers.onsize?.(size);
    } else if (method === 'notifications/message') handlers.onlog?.(params);
  }

  #response(id: number, message: { result?: unknown; error?: unknown }): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer as ReturnType<typeof setTimeout>);
    if (message.error !== undefined)
      pending.reject(new Error(`The App answered an error: ${JSON.stringify(message.error)}`));
    else pending.resolve(message.result);
  }

  #request(method: string, params: unknown): Promise<unknown> {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`The App did not answer ${method}`));
      }, this.#options.timeoutMs ?? 5000);
      this.#pending.set(id, { resolve, reject, timer });
      this.#post({ jsonrpc: '2.0', id, method, params });
    });
  }

  #notifyWhenReady(method: string, params: unknown): void {
    if (this.#initialized) this.#post({ jsonrpc: '2.0', method, params });
    else this.#queue.push({ method, params });
  }

  #post(message: unknown): void {
    // An App's frame has an opaque origin (sandboxed without allow-same-origin): '*' is the only target that reaches
    // it; the message goes to that one window object only.
    this.#options.frame()?.postMessage(message, '*');
  }
}
