import { errorMessage, McpkitError } from '../../jsonrpc/errors.js';
import type { RequestOptions } from '../../protocol/outgoing.js';
import type {
  CallToolResult,
  GetPromptResult,
  ReadResourceResult,
  SamplingContent,
  SamplingMessage,
  ToolUseContent,
} from '../../spec/types.js';
import { type ActivityLog, shorten, summarizeResult } from '../activity-log.js';
import type { ApprovalCallback, ApprovalDecision, ApprovalRequest } from '../approval.js';
import type { HostInstrumentation } from '../instrument.js';
import {
  blocksOf,
  INVALID_ARGUMENTS_META,
  type ModelAdapter,
  type ModelStreamEvent,
  type ModelUsage,
} from '../model/types.js';
import type { HostPrompt, HostTool } from '../registry.js';
import { CALL_TOOL, SEARCH_TOOLS, type ToolSearch } from '../search/facade.js';
import { promptMessages, resourceContent, toolResultBlock } from './content.js';
import { type ToolExposure, ToolOffer } from './exposure.js';
import { parseSlashCommand, promptArguments } from './slash.js';

export type { ToolExposure } from './exposure.js';

/** What a chat shows the app as it happens (a terminal prints these). */
export type ChatEvent =
  | { type: 'model-request'; round: number; provider: string; model: string }
  | { type: 'text'; text: string }
  | {
      type: 'tool-call';
      id: string;
      name: string;
      server: string | undefined;
      arguments: Record<string, unknown>;
    }
  | { type: 'approval-asked'; request: ApprovalRequest }
  | { type: 'approval-decided'; request: ApprovalRequest; decision: ApprovalDecision; reason?: string }
  | { type: 'tool-result'; id: string; name: string; result: CallToolResult; durationMs: number }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'retry'; attempt: number; status: number; delayMs: number }
  | { type: 'skipped'; reason: string }
  | { type: 'prompt'; name: string; messages: number }
  | { type: 'resource'; uri: string }
  | { type: 'done'; stopReason: string; text: string }
  /** How the tools are shown to the model, said when it changes (see {@link ChatOptions.toolExposure}). */
  | { type: 'tool-exposure'; mode: 'all' | 'search' | 'provider'; tools: number; tokens: number };

/** Options of a chat ({@link Host.chat}). */
export interface ChatOptions {
  /** The model (an adapter or a `provider:name` spec); default: the host's. */
  model?: ModelAdapter | string;
  system?: string;
  /** Tokens per answer. Default 4096. */
  maxTokens?: number;
  temperature?: number;
  /**
   * Model requests per turn; the last is made with tool use off, so a turn ends with an answer (calls the model
   * still asks for then are dropped, and the turn's stop reason is `maxRounds`). Default 16.
   */
  maxRounds?: number;
  /** The chat's events. */
  onevent?: (event: ChatEvent) => void;
  /** Asks about this chat's `ask` calls instead of the host's callback. */
  approve?: ApprovalCallback;
  /** Which of the registry's tools the model sees (default: all). */
  tools?: (tool: HostTool) => boolean;
  /** How the tools are shown to the model. Default `all`. */
  toolExposure?: ToolExposure;
  /** For `auto`: the tokens of tool definitions (estimated) past which the chat uses tool search. Default 10 000. */
  toolBudget?: number;
  /**
   * In tool search: how many of the tools `search_tools` found are also offered natively in the following rounds
   * and turns (in the order found, never reordered, so prompt caches hold). Default 10; 0 offers none.
   */
  promoteFound?: number;
  /** An earlier conversation to go on with. */
  messages?: SamplingMessage[];
}

/** What one turn came to. */
export interface ChatTurn {
  /** The model's final text. */
  text: string;
  /** Why the turn ended: the model's stop reason, or `maxRounds`. */
  stopReason: string;
  /** Model requests made. */
  rounds: number;
  toolCalls: number;
  usage: ModelUsage;
  /** The messages the turn added to the conversation. */
  messages: SamplingMessage[];
}

/** What a chat needs of its host. */
export interface ChatHost {
  readonly log: ActivityLog;
  tools(): HostTool[];
  tool(name: string): HostTool | undefined;
  prompts(): HostPrompt[];
  prompt(name: string): HostPrompt | undefined;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: RequestOptions & { approve?: ApprovalCallback },
  ): Promise<CallToolResult>;
  /** The tool search (`search_tools` and `call_tool`), for the `search` and `auto` exposures. */
  readonly toolSearch?: ToolSearch;
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult>;
  getPrompt(name: string, args: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult>;
  /** The host's approval callback. */
  readonly approve: ApprovalCallback | undefined;
  /** Hooks around model requests and tool calls (tracing). */
  readonly instrument?: HostInstrumentation | undefined;
}

/**
 * A conversation between a model and the host's servers. Each turn sends the conversation and the registry's tools
 * to the model; every tool call it asks for goes through the approval policy to its server, and the results go back
 * to it, until it answers (or the turn's rounds run out). Resources can be attached as context, prompts expanded
 * into the conversation (also as `/name arg=value` commands).
 */
export class Chat {
  readonly model: ModelAdapter;
  readonly #host: ChatHost;
  readonly #options: ChatOptions;
  #messages: SamplingMessage[];
  #attached: SamplingContent[] = [];
  #busy = false;
  readonly #offer: ToolOffer;

  constructor(host: ChatHost, model: ModelAdapter, options: ChatOptions = {}) {
    const exposure = options.toolExposure ?? 'all';
    if (exposure === 'provider' && model.deferredToolSearch !== true)
      throw new McpkitError(
        'MODEL_CONFIG_INVALID',
        `${model.provider}: mcpkit does not speak this API's own tool search (built for anthropic and openai-responses, the OpenAI Responses API); use the tool exposure "search" instead`,
      );
    if ((exposure === 'search' || exposure === 'auto') && !host.toolSearch)
      throw new McpkitError(
        'CONFIG_INVALID',
        `The tool exposure "${exposure}" needs a host with a tool search`,
      );
    this.#host = host;
    this.model = model;
    this.#options = options;
    this.#messages = [...(options.messages ?? [])];
    this.#offer = new ToolOffer(host, options, (change) => this.#emit({ type: 'tool-exposure', ...change }));
  }

  /** The conversation so far. */
  get messages(): readonly SamplingMessage[] {
    return this.#messages;
  }

  /** Forgets the conversation (and anything attached). */
  clear(): void {
    this.#messages = [];
    this.#attached = [];
  }

  /** Reads a resource through the host and attaches its contents to the next message sent. */
  async attach(uri: string, options?: RequestOptions): Promise<void> {
    const result = await this.#host.readResource(uri, options);
    this.#attached.push(...resourceContent(result));
    this.#emit({ type: 'resource', uri });
  }

  /** Sends the person's message (with anything attached) and runs the turn. */
  async send(input: string | SamplingContent[], options: { signal?: AbortSignal } = {}): Promise<ChatTurn> {
    const content: SamplingContent[] =
      typeof input === 'string' ? [{ type: 'text', text: input }] : [...input];
    return this.#turn([{ role: 'user', content: [...this.#attached, ...content] }], options.signal, true);
  }

  /**
   * Expands a prompt (qualified name) into the conversation; when its last message is the person's, the model
   * answers it in the same turn.
   */
  async usePrompt(
    name: string,
    args: Record<string, string> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<ChatTurn> {
    const result = await this.#host.getPrompt(
      name,
      args,
      options.signal ? { signal: options.signal } : undefined,
    );
    const messages = promptMessages(result.messages);
    this.#emit({ type: 'prompt', name, messages: messages.length });
    const answer = messages[messages.length - 1]?.role === 'user';
    return this.#turn(messages, options.signal, answer);
  }

  /**
   * Runs `/prompt arg=value …` (a prompt's qualified name, or its own name when one server has it). Unknown
   * prompts and missing required arguments are a `NOT_FOUND` / `CONFIG_INVALID` error saying which.
   */
  async command(line: string, options: { signal?: AbortSignal } = {}): Promise<ChatTurn> {
    const command = parseSlashCommand(line);
    if (!command) throw new McpkitError('CONFIG_INVALID', `Not a slash command: ${JSON.stringify(line)}`);
    const prompt = this.findPrompt(command.name);
    if (!prompt) throw new McpkitError('NOT_FOUND', `There is no prompt named ${command.name}`);
    const { args, missing, unknown } = promptArguments(prompt.definition, command);
    if (missing.length > 0 || unknown.length > 0) {
      const parts = [
        missing.length > 0 ? `missing ${missing.join(', ')}` : '',
        unknown.length > 0 ? `unknown ${unknown.join(', ')}` : '',
      ].filter(Boolean);
      const usage = (prompt.definition.arguments ?? []).map((a) =>
        a.required ? `${a.name}=…` : `[${a.name}=…]`,
      );
      throw new McpkitError(
        'CONFIG_INVALID',
        `/${prompt.name}: ${parts.join('; ')} (usage: /${prompt.name} ${usage.join(' ')})`,
      );
    }
    return this.usePrompt(prompt.name, args, options);
  }

  /** A prompt by its qualified name, or by its server's name for it when only one server has that name. */
  findPrompt(name: string): HostPrompt | undefined {
    const exact = this.#host.prompt(name);
    if (exact) return exact;
    const matches = this.#host.prompts().filter((p) => p.prompt.name === name);
    return matches.length === 1 ? matches[0] : undefined;
  }

  async #turn(added: SamplingMessage[], signal: AbortSignal | undefined, answer: boolean): Promise<ChatTurn> {
    if (this.#busy) throw new McpkitError('CONFIG_INVALID', 'A chat runs one turn at a time');
    this.#busy = true;
    const before = this.#messages.length;
    const attached = this.#attached;
    this.#attached = [];
    const usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
    const turn: ChatTurn = { text: '', stopReason: 'endTurn', rounds: 0, toolCalls: 0, usage, messages: [] };
    try {
      this.#messages.push(...added);
      if (answer) await this.#rounds(turn, signal);
      turn.messages = this.#messages.slice(before);
      this.#emit({ type: 'done', stopReason: turn.stopReason, text: turn.text });
      return turn;
    } catch (e) {
      // The conversation stays as it was before the turn (no call without its result); attachments are kept.
      this.#messages.length = before;
      this.#attached = attached;
      throw e;
    } finally {
      this.#busy = false;
    }
  }

  async #rounds(turn: ChatTurn, signal: AbortSignal | undefined): Promise<void> {
    const o = this.#options;
    const maxRounds = Math.max(1, o.maxRounds ?? 16);
    const onevent = (e: ModelStreamEvent) => {
      if (e.type === 'text' || e.type === 'retry' || e.type === 'skipped') this.#emit(e);
    };
    for (let round = 1; round <= maxRounds; round++) {
      const { mode, tools } = this.#offer.offer();
      const last = round === maxRounds;
      this.#emit({ type: 'model-request', round, provider: this.model.provider, model: this.model.model });
      const started = performance.now();
      let response: Awaited<ReturnType<ModelAdapter['complete']>>;
      try {
        const complete = () =>
          this.model.complete({
            messages: this.#messages,
            ...(o.system === undefined ? {} : { system: o.system }),
            ...(tools.length > 0 ? { tools, toolChoice: last ? 'none' : 'auto' } : {}),
            ...(mode === 'provider' && tools.length > 0 ? { toolSearch: 'provider' as const } : {}),
            maxTokens: o.maxTokens ?? 4096,
            ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
            ...(signal ? { signal } : {}),
            onevent,
          });
        const around = this.#host.instrument;
        response =
          around?.model === undefined
            ? await complete()
            : await around.model(
                {
                  provider: this.model.provider,
                  model: this.model.model,
                  maxTokens: o.maxTokens ?? 4096,
                  temperature: o.temperature,
                },
                complete,
              );
      } catch (e) {
        this.#logModel('error', performance.now() - started, shorten(errorMessage(e)));
        throw e;
      }
      turn.rounds = round;
      const calls = response.content.filter((c): c is ToolUseContent => c.type === 'tool_use');
      const text = response.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      if (response.usage) {
        turn.usage.inputTokens += response.usage.inputTokens;
        turn.usage.outputTokens += response.usage.outputTokens;
        this.#emit({ type: 'usage', usage: response.usage });
      }
      const tokens = response.usage
        ? `${response.usage.inputTokens} in, ${response.usage.outputTokens} out`
        : 'no usage';
      this.#logModel(
        response.stopReason,
        performance.now() - started,
        `${tokens}; ${calls.length} tool calls`,
      );
      turn.text = text;
      turn.stopReason = response.stopReason;
      if (calls.length > 0 && last) {
        // Tool use was off and the model asked anyway: its calls are dropped, so no call stays without a result.
        turn.stopReason = 'maxRounds';
        const said = text === '' ? '(stopped: the turn reached its limit of tool rounds)' : text;
        this.#messages.push({ role: 'assistant', content: [{ type: 'text', text: said }] });
        return;
      }
      this.#messages.push({ role: 'assistant', content: response.content });
      if (calls.length === 0) return;
      const results: SamplingContent[] = [];
      for (const call of calls) {
        turn.toolCalls++;
        results.push(await this.#call(call, signal, mode === 'search'));
      }
      this.#messages.push({ role: 'user', content: results });
    }
  }

  async #call(
    call: ToolUseContent,
    signal: AbortSignal | undefined,
    searching: boolean,
  ): Promise<SamplingContent> {
    const search = searching ? this.#host.toolSearch : undefined;
    if (search?.has(call.name)) return this.#searchCall(search, call, signal);
    const tool = this.#host.tool(call.name);
    this.#emit({
      type: 'tool-call',
      id: call.id,
      name: call.name,
      server: tool?.server,
      arguments: call.input,
    });
    const started = performance.now();
    const asking = { ms: 0 };
    const raw = call._meta?.[INVALID_ARGUMENTS_META];
    let result: CallToolResult;
    if (typeof raw === 'string') {
      result = {
        content: [
          { type: 'text', text: `The arguments of ${call.name} were not a JSON object: ${shorten(raw)}` },
        ],
        isError: true,
      };
      this.#host.log.record({
        kind: 'tool',
        ...(tool ? { server: tool.server } : {}),
        name: call.name,
        outcome: 'error',
        summary: summarizeResult(result),
      });
    } else {
      const approve = this.#approver(asking);
      const run = () =>
        this.#host.callTool(call.name, call.input, {
          ...(signal ? { signal } : {}),
          ...(approve ? { approve } : {}),
        });
      const around = this.#host.instrument;
      result =
        around?.tool === undefined ? await run() : await around.tool({ name: call.name, id: call.id }, run);
    }
    this.#emit({
      type: 'tool-result',
      id: call.id,
      name: call.name,
      result,
      // The call's own time: the person's thinking over its approval is not the tool's.
      durationMs: performance.now() - started - asking.ms,
    });
    return toolResultBlock(call.id, result);
  }

  /**
   * A call of `search_tools` or `call_tool`: shown as the search, or as the call of the tool it names (its server and
   * arguments), run by the tool search with this chat's approvals and tool filter.
   */
  async #searchCall(
    search: ToolSearch,
    call: ToolUseContent,
    signal: AbortSignal | undefined,
  ): Promise<SamplingContent> {
    const input = call.input;
    const inner = call.name === CALL_TOOL && typeof input.name === 'string' ? input.name : undefined;
    const shown = inner ?? call.name;
    const args = inner !== undefined && isRecord(input.arguments) ? input.arguments : input;
    this.#emit({
      type: 'tool-call',
      id: call.id,
      name: shown,
      server: inner === undefined ? undefined : this.#host.tool(inner)?.server,
      arguments: args,
    });
    const started = performance.now();
    const asking = { ms: 0 };
    const approve = this.#approver(asking);
    const filter = this.#options.tools;
    const result = await search.call(call.name, input, {
      ...(signal ? { signal } : {}),
      ...(approve ? { approve } : {}),
      ...(filter ? { filter } : {}),
    });
    if (call.name === SEARCH_TOOLS) this.#offer.promote(result);
    this.#emit({
      type: 'tool-result',
      id: call.id,
      name: shown,
      result,
      // The call's own time: the person's thinking over its approval is not the tool's.
      durationMs: performance.now() - started - asking.ms,
    });
    return toolResultBlock(call.id, result);
  }

  /**
   * The approval callback of this chat's calls, telling the app when the person is asked and what they said;
   * `asking` adds up the time spent waiting for the answer.
   */
  #approver(asking: { ms: number }): ApprovalCallback | undefined {
    const callback = this.#options.approve ?? this.#host.approve;
    if (!callback) return undefined;
    return async (request) => {
      this.#emit({ type: 'approval-asked', request });
      const asked = performance.now();
      let answer: Awaited<ReturnType<ApprovalCallback>>;
      try {
        answer = await callback(request);
      } finally {
        asking.ms += performance.now() - asked;
      }
      const decision = typeof answer === 'string' ? answer : answer.decision;
      const reason = typeof answer === 'string' ? undefined : answer.reason;
      this.#emit({
        type: 'approval-decided',
        request,
        decision,
        ...(reason === undefined ? {} : { reason }),
      });
      return answer;
    };
  }

  #logModel(outcome: string, durationMs: number, summary: string): void {
    this.#host.log.record({
      kind: 'model',
      name: `${this.model.provider}:${this.model.model}`,
      outcome,
      durationMs,
      summary,
    });
  }

  #emit(event: ChatEvent): void {
    const listener = this.#options.onevent;
    if (!listener) return;
    try {
      listener(event);
    } catch (e) {
      this.#host.log.record({
        kind: 'server',
        outcome: 'warning',
        summary: shorten(`a chat event listener threw: ${errorMessage(e)}`),
      });
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of a message's blocks (for showing a conversation). */
export function messageText(message: SamplingMessage): string {
  return blocksOf(message.content)
    .map((b) => (b.type === 'text' ? b.text : `[${b.type}]`))
    .join('');
}
