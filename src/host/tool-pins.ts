import { errorMessage } from '../jsonrpc/errors.js';
import type { ServerConfig, ToolChangePolicy } from './config/types.js';
import { type ToolChange, toolChange } from './definition-diff.js';
import type { PinnedTool, ToolPinStore } from './pin-store.js';
import type { HostTool } from './registry.js';
import { definitionDigest, pinnedDefinition, serverPinKey } from './tool-digest.js';

/** A tool found changed when its server's list was read, and what the config made of it. */
export interface ToolChangeFound {
  tool: HostTool;
  change: ToolChange;
  /** `changed`: the person is asked before it runs; `refused`: it will not run; `accepted`: pinned again as it is. */
  outcome: 'changed' | 'refused' | 'accepted';
}

interface ServerPins {
  key: string;
  tools: Map<string, PinnedTool>;
  /** The change of each changed tool, made once per new definition (by tool name). */
  changes: Map<string, { digest: string; change: ToolChange }>;
}

/**
 * The host's pins of its servers' tool definitions. A tool whose policy is `allow` is pinned when first listed; one the
 * person is asked about, when the person approves it. A tool that no longer matches its pin is a change: asked again
 * with a diff (refused, or pinned again, as the server's `toolChanges` says). Read per call: two map lookups and a
 * comparison of digests computed when the list changed.
 */
export class ToolPins {
  readonly #store: ToolPinStore;
  readonly #onproblem: (server: string, message: string) => void;
  readonly #servers = new Map<string, ServerPins>();
  #saving: Promise<void> = Promise.resolve();

  constructor(store: ToolPinStore, onproblem: (server: string, message: string) => void) {
    this.#store = store;
    this.#onproblem = onproblem;
  }

  /** Reads a server's pins from the store, once (a store that fails is reported, and the server has none). */
  async load(config: ServerConfig): Promise<void> {
    const key = serverPinKey(config);
    if (this.#servers.get(config.name)?.key === key) return;
    const tools = new Map<string, PinnedTool>();
    try {
      for (const [name, pin] of Object.entries(await this.#store.load(key))) {
        // The definition is what the person saw: a digest that does not match it is recomputed.
        const digest = definitionDigest(pin.definition);
        tools.set(name, digest === pin.digest ? pin : { ...pin, digest });
      }
    } catch (e) {
      this.#onproblem(config.name, `reading the tool pins failed: ${errorMessage(e)}`);
    }
    if (this.#servers.get(config.name)?.key === key) return;
    this.#servers.set(config.name, { key, tools, changes: new Map() });
  }

  /**
   * Looks at a server's tools as just listed: pins the `allow` tools seen for the first time, pins again the changed
   * tools of a server whose `toolChanges` is `accept`, and returns every change found (each new definition once).
   */
  review(config: ServerConfig, tools: readonly HostTool[]): ToolChangeFound[] {
    const pins = this.#servers.get(config.name);
    if (!pins) return [];
    const found: ToolChangeFound[] = [];
    const policy: ToolChangePolicy = config.toolChanges ?? 'ask';
    for (const tool of tools) {
      const pin = pins.tools.get(tool.tool.name);
      if (pin === undefined) {
        if (tool.mode === 'allow') this.pin(tool);
        continue;
      }
      if (pin.digest === tool.digest) continue;
      const known = pins.changes.get(tool.tool.name);
      const change = this.changeOf(tool) as ToolChange;
      if (policy === 'accept') {
        this.pin(tool);
        found.push({ tool, change, outcome: 'accepted' });
      } else if (known?.digest !== tool.digest) {
        found.push({ tool, change, outcome: policy === 'refuse' ? 'refused' : 'changed' });
      }
    }
    return found;
  }

  /** How `tool` differs from its pin; undefined when it matches or has none. */
  changeOf(tool: HostTool): ToolChange | undefined {
    const pins = this.#servers.get(tool.server);
    const pin = pins?.tools.get(tool.tool.name);
    if (pin === undefined || pin.digest === tool.digest) return undefined;
    const made = (pins as ServerPins).changes.get(tool.tool.name);
    if (made?.digest === tool.digest) return made.change;
    const change = toolChange(pin.definition, pinnedDefinition(tool.tool));
    (pins as ServerPins).changes.set(tool.tool.name, { digest: tool.digest, change });
    return change;
  }

  /** Pins `tool` as it is now (in memory at once; the store is written in the background, a failure reported). */
  pin(tool: HostTool): void {
    const pins = this.#servers.get(tool.server);
    if (!pins || pins.tools.get(tool.tool.name)?.digest === tool.digest) return;
    const pin: PinnedTool = {
      digest: tool.digest,
      definition: pinnedDefinition(tool.tool),
      pinnedAt: new Date().toISOString(),
    };
    pins.tools.set(tool.tool.name, pin);
    pins.changes.delete(tool.tool.name);
    const saved = this.#store
      .save(pins.key, tool.tool.name, pin)
      .catch((e: unknown) =>
        this.#onproblem(tool.server, `saving the pin of ${tool.tool.name} failed: ${errorMessage(e)}`),
      );
    this.#saving = Promise.all([this.#saving, saved]).then(() => undefined);
  }

  /** Resolves once every pin made so far is in the store (or its failure reported). */
  flush(): Promise<void> {
    return this.#saving;
  }
}
