import type { JsonObject } from '../jsonrpc/types.js';
import type { Completer } from '../server/definitions/completion.js';
import type { PromptArgumentConfig, PromptHandler } from '../server/definitions/prompts.js';
import type { RegisteredHandle } from '../server/definitions/registry.js';
import type {
  ResourceHandler,
  ResourceTemplateConfig,
  ResourceTemplateHandler,
} from '../server/definitions/resources.js';
import type { ToolConfig, ToolHandler } from '../server/definitions/tools.js';
import type { McpServer } from '../server/server.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../spec/types.js';
import { UriTemplate } from '../spec/uri-template.js';

/** A tool another server offers, with the handler that forwards a call to it. */
export interface MirroredTool {
  /** The name offered here. */
  name: string;
  /** The definition as the other server listed it (its `name` is not used). */
  definition: Tool;
  call: ToolHandler<unknown, unknown>;
}

/** A prompt another server offers, with the handler that forwards a get, and optionally completion of arguments. */
export interface MirroredPrompt {
  name: string;
  definition: Prompt;
  get: PromptHandler;
  complete?: (argument: string) => Completer;
}

/** A resource another server offers, with the handler that forwards a read. */
export interface MirroredResource {
  definition: Resource;
  read: ResourceHandler;
}

/** A resource template another server offers, with the handler that forwards a read and optional completion. */
export interface MirroredTemplate {
  definition: ResourceTemplate;
  read: ResourceTemplateHandler;
  complete?: (variable: string) => Completer;
}

/** Says what could not be offered (a definition mcpkit refuses) without stopping the rest. */
export type MirrorReport = (what: string, error: unknown) => void;

interface Offered {
  handle: RegisteredHandle<unknown>;
  /** The definition it was registered from, as JSON: a change re-registers it. */
  fingerprint: string;
}

/**
 * Keeps one kind of an `McpServer`'s registrations equal to a list of definitions from elsewhere (another server
 * through a client, or many through the host's registry): new ones registered, changed ones registered again, gone
 * ones removed. Registrations made here are its own; others on the same server are left alone.
 */
class MirroredKind {
  readonly #offered = new Map<string, Offered>();
  readonly #report: MirrorReport;
  readonly #what: string;

  constructor(what: string, report: MirrorReport) {
    this.#what = what;
    this.#report = report;
  }

  sync<T>(
    items: Iterable<T>,
    key: (item: T) => string,
    register: (item: T) => RegisteredHandle<unknown>,
  ): void {
    const live = new Set<string>();
    for (const item of items) {
      const k = key(item);
      if (live.has(k)) continue; // The first of two with one name owns it.
      live.add(k);
      const fingerprint = JSON.stringify(item, (_name, value) =>
        typeof value === 'function' ? undefined : value,
      );
      const known = this.#offered.get(k);
      if (known?.fingerprint === fingerprint) continue;
      known?.handle.remove();
      this.#offered.delete(k);
      try {
        this.#offered.set(k, { handle: register(item), fingerprint });
      } catch (e) {
        this.#report(`${this.#what} ${k} not offered`, e);
      }
    }
    for (const [k, known] of this.#offered) {
      if (live.has(k)) continue;
      known.handle.remove();
      this.#offered.delete(k);
    }
  }

  clear(): void {
    for (const known of this.#offered.values()) known.handle.remove();
    this.#offered.clear();
  }
}

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

const RESOURCE_FIELDS = ['title', 'description', 'mimeType', 'annotations', 'icons', '_meta'] as const;

/**
 * Definitions from elsewhere offered by an `McpServer` and kept in step with their source: what the proxy
 * (`compose/proxy.ts`) and the host's gateway (`host.toServer()`) share. Each `tools`/`prompts`/`resources`/
 * `templates` call takes the full current list of that kind.
 */
export class Mirror {
  readonly #server: McpServer;
  readonly #report: MirrorReport;
  readonly #tools: MirroredKind;
  readonly #prompts: MirroredKind;
  readonly #resources: MirroredKind;
  readonly #templates: MirroredKind;

  constructor(server: McpServer, report: MirrorReport) {
    this.#server = server;
    this.#report = report;
    this.#tools = new MirroredKind('tool', report);
    this.#prompts = new MirroredKind('prompt', report);
    this.#resources = new MirroredKind('resource', report);
    this.#templates = new MirroredKind('resource template', report);
  }

  tools(list: Iterable<MirroredTool>): void {
    this.#tools.sync(
      list,
      (t) => t.name,
      (t) => {
        const d = t.definition;
        const config: ToolConfig<JsonObject, JsonObject> = {
          ...pick(d, ['title', 'description', 'annotations', 'icons', '_meta']),
          inputSchema: d.inputSchema as JsonObject,
        };
        if (d.outputSchema === undefined) return this.#server.tool(t.name, config, t.call as never);
        try {
          return this.#server.tool(
            t.name,
            { ...config, outputSchema: d.outputSchema as JsonObject },
            t.call as never,
          );
        } catch (e) {
          // An output schema mcpkit cannot declare: the tool is still offered, without it.
          this.#report(`tool ${t.name} offered without its outputSchema`, e);
          return this.#server.tool(t.name, config, t.call as never);
        }
      },
    );
  }

  prompts(list: Iterable<MirroredPrompt>): void {
    this.#prompts.sync(
      list,
      (p) => p.name,
      (p) => {
        const args: Record<string, PromptArgumentConfig> = {};
        for (const a of p.definition.arguments ?? []) {
          const arg: PromptArgumentConfig = pick(a, ['title', 'description', 'required']);
          if (p.complete) arg.complete = p.complete(a.name);
          args[a.name] = arg;
        }
        return this.#server.prompt(
          p.name,
          { ...pick(p.definition, ['title', 'description', 'icons', '_meta']), arguments: args },
          p.get,
        );
      },
    );
  }

  resources(list: Iterable<MirroredResource>): void {
    this.#resources.sync(
      list,
      (r) => r.definition.uri,
      (r) => {
        const d = r.definition;
        return this.#server.resource(
          d.uri,
          { name: d.name, ...pick(d, [...RESOURCE_FIELDS, 'size']) },
          r.read,
        );
      },
    );
  }

  templates(list: Iterable<MirroredTemplate>): void {
    this.#templates.sync(
      list,
      (t) => t.definition.uriTemplate,
      (t) => {
        const d = t.definition;
        const complete = t.complete;
        const config: ResourceTemplateConfig = { name: d.name, ...pick(d, RESOURCE_FIELDS) };
        if (complete) {
          const names = new UriTemplate(d.uriTemplate).variableNames;
          config.complete = Object.fromEntries(names.map((n) => [n, complete(n)]));
        }
        return this.#server.resourceTemplate(d.uriTemplate, config, t.read);
      },
    );
  }

  /** Removes everything this mirror offered. */
  clear(): void {
    this.#tools.clear();
    this.#prompts.clear();
    this.#resources.clear();
    this.#templates.clear();
  }
}
