import { McpkitError } from '../jsonrpc/errors.js';
import { appVisibilityOf } from '../spec/apps.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../spec/types.js';
import { UriTemplate } from '../spec/uri-template.js';
import type { ApprovalMode, ServerConfig } from './config/types.js';
import { nameKey, qualifyNames } from './names.js';
import { toolDigest } from './tool-digest.js';

/** A tool of the registry: the model's name for it, its server, and its definition as the model sees it. */
export interface HostTool {
  /** The qualified name (valid for model APIs). */
  name: string;
  server: string;
  /** The tool as its server lists it. */
  tool: Tool;
  /** The tool under its qualified name. */
  definition: Tool;
  /** Its approval mode, from the policy (decided once per registry change). */
  mode: ApprovalMode;
  /** The digest of its definition (see `toolDigest`; computed when its server's list changes). */
  digest: string;
  /**
   * Listed from the host's tool-list cache, not by the running server (a lazy server not started yet, or one still
   * starting): a call starts or waits for the server and runs the definition it lists then.
   */
  cached?: boolean;
}

/**
 * Whether the model may see and call `tool`: an MCP Apps tool whose `_meta.ui.visibility` leaves out `model` is its
 * App's alone (ext-apps 2026-01-26: a host must not put it in the agent's tool list).
 */
export function offeredToModel(tool: HostTool | undefined): tool is HostTool {
  return tool !== undefined && appVisibilityOf(tool.tool).includes('model');
}

/** A prompt of the registry under its qualified name. */
export interface HostPrompt {
  name: string;
  server: string;
  prompt: Prompt;
  definition: Prompt;
}

/** A resource and the server that owns its URI. */
export interface HostResource {
  server: string;
  resource: Resource;
}

/** A resource template and its server. */
export interface HostTemplate {
  server: string;
  template: ResourceTemplate;
  matcher: UriTemplate | undefined;
}

/** What one server offers (as last listed). */
export interface ServerLists {
  tools?: Tool[];
  prompts?: Prompt[];
  resources?: Resource[];
  templates?: ResourceTemplate[];
}

interface Entry {
  config: ServerConfig;
  lists: Required<ServerLists>;
  /** The digest of each tool of `lists.tools`. */
  digests: Map<Tool, string>;
  /** Its tools come from the tool-list cache. */
  cached: boolean;
}

/**
 * The tools, prompts, resources and templates of every ready server under names valid for model APIs. Rebuilt as a
 * whole when a server's lists change (names depend on the whole set), then read by plain map lookups.
 */
export class Registry {
  readonly #separator: string;
  readonly #modeFor: (server: ServerConfig, tool: Tool) => ApprovalMode;
  readonly #onproblem: (server: string, message: string) => void;
  readonly #servers = new Map<string, Entry>();
  #tools = new Map<string, HostTool>();
  #prompts = new Map<string, HostPrompt>();
  #resources = new Map<string, HostResource>();
  #templates: HostTemplate[] = [];
  /** The servers of each URI more than one server lists. */
  #shared = new Map<string, string[]>();
  /** The templates that match, most specific first (the most characters outside `{…}` expressions). */
  #routes: { template: HostTemplate; literal: number }[] = [];
  /** Clashes already reported (bounded by the resources listed), so a rebuild does not report them again. */
  #reported = new Set<string>();

  constructor(
    separator: string,
    modeFor: (server: ServerConfig, tool: Tool) => ApprovalMode,
    onproblem: (server: string, message: string) => void,
  ) {
    this.#separator = separator;
    this.#modeFor = modeFor;
    this.#onproblem = onproblem;
  }

  /**
   * Replaces what `config`'s server offers (lists not given are kept), filtering its tools by the config. `cached`:
   * the tools are the last known list from the host's cache, not the running server's.
   */
  set(config: ServerConfig, lists: ServerLists, cached = false): void {
    const entry = this.#servers.get(config.name);
    const known = entry?.lists;
    const tools = lists.tools ? lists.tools.filter((t) => offered(config, t.name)) : (known?.tools ?? []);
    // Digests only for a list just read: an unchanged one keeps its own.
    const digests = lists.tools || !entry ? new Map(tools.map((t) => [t, toolDigest(t)])) : entry.digests;
    this.#servers.set(config.name, {
      config,
      digests,
      cached,
      lists: {
        tools,
        prompts: lists.prompts ?? known?.prompts ?? [],
        resources: lists.resources ?? known?.resources ?? [],
        templates: lists.templates ?? known?.templates ?? [],
      },
    });
    this.#rebuild();
  }

  /** Forgets a server (it is no longer ready). Returns whether it was there. */
  remove(server: string): boolean {
    if (!this.#servers.delete(server)) return false;
    this.#rebuild();
    return true;
  }

  tools(): HostTool[] {
    return [...this.#tools.values()];
  }

  /** Whether the registry holds a list of `server`'s tools, and whether it is the cached one. */
  listed(server: string): 'live' | 'cached' | undefined {
    const entry = this.#servers.get(server);
    return entry === undefined ? undefined : entry.cached ? 'cached' : 'live';
  }

  tool(name: string): HostTool | undefined {
    return this.#tools.get(name);
  }

  prompts(): HostPrompt[] {
    return [...this.#prompts.values()];
  }

  prompt(name: string): HostPrompt | undefined {
    return this.#prompts.get(name);
  }

  resources(): HostResource[] {
    return [...this.#resources.values()];
  }

  templates(): HostTemplate[] {
    return [...this.#templates];
  }

  /**
   * The server that serves `uri`: the one that lists that exact URI; else the one whose matching template is the
   * most specific (the most characters outside `{…}` expressions), so a catch-all template never takes a read meant
   * for another server. Two servers equally close is an `AMBIGUOUS_RESOURCE` error naming them, never a guess.
   */
  ownerOf(uri: string): string | undefined {
    const direct = this.#resources.get(uri);
    if (direct) {
      const shared = this.#shared.get(uri);
      if (shared) throw ambiguous(uri, shared, 'list it');
      return direct.server;
    }
    let best: { server: string; literal: number } | undefined;
    const tied = new Set<string>();
    for (const { template, literal } of this.#routes) {
      if (best !== undefined && literal < best.literal) break;
      if (!template.matcher?.match(uri)) continue;
      if (best === undefined) best = { server: template.server, literal };
      else if (template.server !== best.server) tied.add(template.server);
    }
    if (best !== undefined && tied.size > 0)
      throw ambiguous(uri, [best.server, ...tied], 'have templates that match it equally well');
    return best?.server;
  }

  #rebuild(): void {
    // Servers in name order, so every derived name and every clash winner is independent of start order.
    const entries = [...this.#servers.values()].sort((a, b) => (a.config.name < b.config.name ? -1 : 1));
    const toolNames = qualifyNames(
      entries.flatMap((e) => e.lists.tools.map((t) => ({ server: e.config.name, name: t.name }))),
      this.#separator,
    );
    const promptNames = qualifyNames(
      entries.flatMap((e) => e.lists.prompts.map((p) => ({ server: e.config.name, name: p.name }))),
      this.#separator,
    );
    const tools = new Map<string, HostTool>();
    const prompts = new Map<string, HostPrompt>();
    const resources = new Map<string, HostResource>();
    const templates: HostTemplate[] = [];
    const shared = new Map<string, string[]>();
    const clashes = new Set<string>();
    for (const { config, lists, digests, cached } of entries) {
      const server = config.name;
      for (const tool of lists.tools) {
        const name = toolNames.get(nameKey(server, tool.name)) as string;
        const definition: Tool = { ...tool, name };
        if (tool.title === undefined) definition.title = tool.name;
        const digest = digests.get(tool) as string;
        const mode = this.#modeFor(config, tool);
        tools.set(name, { name, server, tool, definition, mode, digest, ...(cached ? { cached } : {}) });
      }
      for (const prompt of lists.prompts) {
        const name = promptNames.get(nameKey(server, prompt.name)) as string;
        prompts.set(name, { name, server, prompt, definition: { ...prompt, name } });
      }
      for (const resource of lists.resources) {
        const owner = resources.get(resource.uri);
        if (owner) {
          if (owner.server === server) continue;
          const servers = shared.get(resource.uri) ?? [owner.server];
          servers.push(server);
          shared.set(resource.uri, servers);
          const clash = `${resource.uri}\u0000${server}`;
          clashes.add(clash);
          if (!this.#reported.has(clash)) {
            this.#reported.add(clash);
            this.#onproblem(
              server,
              `resource ${resource.uri} is also offered by ${owner.server}: reads of it are refused while both offer it`,
            );
          }
          continue;
        }
        resources.set(resource.uri, { server, resource });
      }
      for (const template of lists.templates)
        templates.push({ server, template, matcher: matcher(template.uriTemplate) });
    }
    this.#tools = tools;
    this.#prompts = prompts;
    this.#resources = resources;
    this.#templates = templates;
    this.#shared = shared;
    // Most specific first; equally specific ones keep the servers' name order (sort is stable).
    this.#routes = templates
      .map((template) => ({ template, literal: literalLength(template.template.uriTemplate) }))
      .sort((a, b) => b.literal - a.literal);
    // Clashes that are gone are forgotten (reported again if they come back); the set stays bounded.
    for (const clash of this.#reported) if (!clashes.has(clash)) this.#reported.delete(clash);
  }
}

/** Whether the config offers the server's tool `name` (`allowedTools`, then `disabledTools`). */
function offered(config: ServerConfig, name: string): boolean {
  if (config.allowedTools && !config.allowedTools.includes(name)) return false;
  return !config.disabledTools?.includes(name);
}

/** How specific a URI template is: its characters outside `{…}` expressions. */
function literalLength(template: string): number {
  return template.replace(/\{[^}]*\}/g, '').length;
}

function ambiguous(uri: string, servers: readonly string[], how: string): McpkitError {
  return new McpkitError(
    'AMBIGUOUS_RESOURCE',
    `The servers ${servers.join(' and ')} ${how}: the read of ${uri} goes to neither`,
  );
}

function matcher(template: string): UriTemplate | undefined {
  try {
    return new UriTemplate(template);
  } catch {
    // A template we cannot parse is still listed; reads of it go by exact resources only.
    return undefined;
  }
}
