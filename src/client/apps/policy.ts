// The host's rules for what an App may ask of its server: tool calls only of that server's tools the App may see,
// each through the host's approval (the same as the model's), links only after the person says so.
import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors.js';
import { appVisibilityOf } from '../../spec/apps.js';
import type { Tool } from '../../spec/types.js';

/** One tool call an App asks for, as put to the host's approval. */
export interface AppToolCall {
  /** The App's `ui://` resource URI. */
  app: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Options of {@link AppPolicy}. */
export interface AppPolicyOptions {
  /** The App's `ui://` resource URI. */
  app: string;
  /** The tools of the App's server, as it lists them now. */
  tools: () => readonly Tool[] | Promise<readonly Tool[]>;
  /** The host's approval of a tool call (the path the model's calls take): true lets it run. */
  approve: (call: AppToolCall) => boolean | Promise<boolean>;
}

/**
 * Decides an App's requests on the host side, where the page running the App cannot skip it: `tools/call` of a tool
 * its server lists and does not keep from Apps (`_meta.ui.visibility` without `app`), approved by the host; links
 * only http(s). Refusals are JSON-RPC errors the bridge sends back to the App.
 */
export class AppPolicy {
  readonly #options: AppPolicyOptions;

  constructor(options: AppPolicyOptions) {
    this.#options = options;
  }

  /** The App's `ui://` URI. */
  get app(): string {
    return this.#options.app;
  }

  /** Resolves when the App may call tool `name` with `args`; throws the JSON-RPC error to answer otherwise. */
  async toolCall(name: string, args: Record<string, unknown>): Promise<void> {
    const tool = (await this.#options.tools()).find((t) => t.name === name);
    if (!tool) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name)}`);
    if (!appVisibilityOf(tool).includes('app'))
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Tool ${JSON.stringify(name)} is not callable from an App`,
      );
    const approved = await this.#options.approve({ app: this.#options.app, name, arguments: args });
    if (!approved)
      throw new JsonRpcError(
        ErrorCode.UserRejected,
        `The person declined the App's call of ${JSON.stringify(name)}`,
      );
  }

  /** The URL an App asks to open, checked: http(s) only, no credentials. Throws the error to answer otherwise. */
  link(url: unknown): string {
    if (typeof url !== 'string' || !URL.canParse(url))
      throw new JsonRpcError(ErrorCode.InvalidParams, 'ui/open-link needs an absolute URL');
    const parsed = new URL(url);
    if (!/^https?:$/.test(parsed.protocol) || parsed.username !== '' || parsed.password !== '')
      throw new JsonRpcError(
        ErrorCode.InvalidParams,
        `Only http(s) links without credentials open, not ${url}`,
      );
    return parsed.href;
  }
}
