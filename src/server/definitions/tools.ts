import { ErrorCode, errorMessage, JsonRpcError, McpkitError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/types.js';
import {
  type InferArgs,
  type SchemaArg,
  type ToolSchema,
  toToolSchema,
  type ValidationResult,
} from '../../schema/index.js';
import { type InputRequiredReturn, InputRequiredSignal, isInputRequired } from '../../spec/input-required.js';
import { readParamHeaders } from '../../spec/tool-headers.js';
import type { CallToolResult, ContentBlock, Icon, Meta, Tool, ToolAnnotations } from '../../spec/types.js';
import type { RequestContext } from '../handler/context.js';
import { withFailure } from '../handler/failure.js';
import type { Around } from '../handler/middleware.js';
import {
  checkToolCache,
  checkToolTaskConfig,
  type ToolCacheConfig,
  type ToolTaskConfig,
} from '../handler/tool-options.js';

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What a tool handler may return: a full result, structured content alone, or plain text. */
export type ToolReturn<O> =
  | string
  | (Omit<CallToolResult, 'structuredContent' | 'content'> & {
      content?: ContentBlock[];
      structuredContent?: O;
    });

/** A tool's definition (everything but its name and handler). */
export interface ToolConfig<
  I extends SchemaArg | undefined = undefined,
  O extends SchemaArg | undefined = undefined,
> {
  title?: string;
  description?: string;
  /** Standard Schema (zod, valibot, arktype) or a JSON Schema object; defaults to an empty object schema. */
  inputSchema?: I;
  /** Standard Schema or JSON Schema object the result's `structuredContent` must match. */
  outputSchema?: O;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * Lets the server answer stateless (2026-07-28) calls with a task (tasks extension) when the
   * request declares `io.modelcontextprotocol/tasks`: 'optional', 'required' or {@link ToolTaskConfig}
   * options. On stateful sessions the tool simply runs.
   */
  task?: ToolTaskConfig;
  /**
   * OAuth scopes a caller needs to use this: an authenticated request without them is refused (over HTTP, 403
   * \`insufficient_scope\` naming them, so the client steps up) and does not see it listed. Requests that were not
   * authenticated (no \`auth\` on the endpoint, stdio) are not checked.
   */
  requiredScopes?: readonly string[];
  /**
   * Marks the tool's results safe to cache: the same arguments give the same result for `ttlMs` (per principal
   * unless `scope: 'shared'`). A cached result is answered again without running the handler; errors are not kept.
   */
  cache?: ToolCacheConfig;
}

/** The arguments a tool handler receives. */
export type ToolArgs<I> = I extends SchemaArg ? InferArgs<I, 'output'> : Record<string, never>;
/** The structured output a tool handler returns. */
export type ToolOutput<O> = O extends SchemaArg ? InferArgs<O, 'input'> : { [key: string]: unknown };

/** A tool handler. */
export type ToolHandler<I, O> = (
  args: ToolArgs<I>,
  ctx: RequestContext,
) =>
  | ToolReturn<ToolOutput<O>>
  | InputRequiredReturn
  | Promise<ToolReturn<ToolOutput<O>> | InputRequiredReturn>;

/** Changes accepted by a tool handle's `update`. */
export type ToolUpdate = Partial<ToolConfig<SchemaArg | undefined, SchemaArg | undefined>> & {
  handler?: ToolHandler<unknown, unknown>;
};

/** A registered tool, compiled once. */
export interface ToolDef {
  name: string;
  config: ToolConfig<SchemaArg | undefined, SchemaArg | undefined>;
  input: ToolSchema | undefined;
  output: ToolSchema | undefined;
  handler: ToolHandler<unknown, unknown>;
  /** Set on a tool a mount added: its own server's middleware around its calls. */
  around?: Around;
}

const EMPTY_INPUT = Object.freeze({ type: 'object', properties: {} });

/** Checks and compiles a tool definition (schemas converted once; validators compile lazily). */
export function defineTool(
  name: string,
  config: ToolConfig<SchemaArg | undefined, SchemaArg | undefined>,
  handler: ToolHandler<unknown, unknown>,
): ToolDef {
  checkToolName(name);
  const input = config.inputSchema === undefined ? undefined : toToolSchema(config.inputSchema, 'input');
  const output = config.outputSchema === undefined ? undefined : toToolSchema(config.outputSchema, 'output');
  for (const [which, s] of [
    ['inputSchema', input],
    ['outputSchema', output],
  ] as const) {
    if (s && s.jsonSchema.type !== 'object') {
      throw new McpkitError(
        'INVALID_DEFINITION',
        `Tool ${name}: ${which} must describe an object (type: "object")`,
      );
    }
  }
  if (input) checkParamHeaders(name, input.jsonSchema);
  if (config.task !== undefined) checkToolTaskConfig(name, config.task);
  if (config.cache !== undefined) checkToolCache(name, config.cache);
  return { name, config, input, output, handler };
}

/** Refuses a tool name outside the spec's rule (1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "."). */
export function checkToolName(name: string, where = ''): void {
  if (!TOOL_NAME.test(name)) {
    throw new McpkitError(
      'INVALID_DEFINITION',
      `${where}Invalid tool name ${JSON.stringify(name)}: use 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "."`,
    );
  }
}

/** Refuses `x-mcp-header` annotations that clients must drop (the one rule of `spec/tool-headers.ts`). */
function checkParamHeaders(name: string, inputSchema: unknown): void {
  const read = readParamHeaders(inputSchema);
  if (!read.ok) {
    throw new McpkitError(
      'INVALID_DEFINITION',
      `Tool ${name}: the x-mcp-header annotation of parameter "${read.property}" ${read.reason}; clients would drop this tool from tools/list`,
    );
  }
}

/** The tool as listed by `tools/list`. */
export function describeTool(def: ToolDef): JsonObject {
  const { title, description, annotations, icons, _meta } = def.config;
  const tool: Tool = { name: def.name, inputSchema: def.input?.jsonSchema ?? EMPTY_INPUT };
  if (title !== undefined) tool.title = title;
  if (description !== undefined) tool.description = description;
  if (def.output) tool.outputSchema = def.output.jsonSchema;
  if (annotations !== undefined) tool.annotations = annotations;
  if (icons !== undefined) tool.icons = icons;
  if (_meta !== undefined) tool._meta = _meta;
  return tool;
}

/** Applies an update to a tool definition; new input or output schemas are compiled and checked as at registration. */
export function updateTool(def: ToolDef, changes: ToolUpdate): ToolDef {
  const { handler, ...config } = changes;
  const merged = { ...def.config, ...config };
  if (!('inputSchema' in config) && !('outputSchema' in config)) {
    if (merged.task !== undefined) checkToolTaskConfig(def.name, merged.task);
    return { ...def, config: merged, handler: handler ?? def.handler };
  }
  return defineTool(def.name, merged, handler ?? def.handler);
}

/**
 * Runs `tools/call`: validates input, runs the handler, checks and completes the result. Synchronous validators and
 * handlers are answered in the same turn (no promise per call); a promise from either is followed.
 */
export function callTool(
  def: ToolDef,
  rawArgs: unknown,
  ctx: RequestContext,
): Promise<JsonObject> | JsonObject {
  const args = rawArgs ?? {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    return errorResult(`Invalid arguments for tool ${def.name}: arguments must be an object`);
  }
  if (!def.input) return runTool(def, args, ctx);
  const pending = def.input.validate(args);
  if (pending instanceof Promise) return pending.then((checked) => validated(def, checked, ctx));
  return validated(def, pending, ctx);
}

function validated(
  def: ToolDef,
  checked: ValidationResult,
  ctx: RequestContext,
): Promise<JsonObject> | JsonObject {
  if (!checked.ok) return errorResult(`Invalid arguments for tool ${def.name}: ${checked.issues.join('; ')}`);
  return runTool(def, checked.value, ctx);
}

function runTool(def: ToolDef, value: unknown, ctx: RequestContext): Promise<JsonObject> | JsonObject {
  let out: ToolReturn<unknown> | InputRequiredReturn | Promise<ToolReturn<unknown> | InputRequiredReturn>;
  try {
    out = def.handler(value as never, ctx);
  } catch (e) {
    return handlerFailed(e, ctx);
  }
  if (out instanceof Promise) {
    return out.then(
      (returned) => handlerReturned(def, returned),
      (e: unknown) => handlerFailed(e, ctx),
    );
  }
  return handlerReturned(def, out);
}

function handlerReturned(
  def: ToolDef,
  returned: ToolReturn<unknown> | InputRequiredReturn,
): Promise<JsonObject> | JsonObject {
  if (isInputRequired(returned)) return returned;
  return finishResult(def, returned);
}

/** A thrown error is a tool execution error (the model should see it and may recover), except protocol errors. */
function handlerFailed(e: unknown, ctx: RequestContext): JsonObject {
  if (e instanceof JsonRpcError || e instanceof InputRequiredSignal || ctx.signal.aborted) throw e;
  return withFailure(errorResult(errorMessage(e)), { error: e });
}

function finishResult(def: ToolDef, returned: ToolReturn<unknown>): JsonObject | Promise<JsonObject> {
  if (typeof returned === 'string') {
    // A tool with an output schema must return structured content that matches it (a MUST of the spec).
    if (def.output) {
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Tool ${def.name} has an outputSchema but returned only text, no structuredContent`,
      );
    }
    return { content: [{ type: 'text', text: returned }] };
  }
  if (typeof returned !== 'object' || returned === null) {
    throw new JsonRpcError(ErrorCode.InternalError, `Tool ${def.name} returned an invalid result`);
  }
  const result = returned as CallToolResult & JsonObject;
  if (def.output && !result.isError) {
    if (result.structuredContent === undefined) {
      throw new JsonRpcError(
        ErrorCode.InternalError,
        `Tool ${def.name} has an outputSchema but returned no structuredContent`,
      );
    }
    const pending = def.output.validate(result.structuredContent);
    if (pending instanceof Promise) return pending.then((checked) => completeResult(def, result, checked));
    return completeResult(def, result, pending);
  }
  return completeResult(def, result, undefined);
}

/** Fails on an output-schema mismatch, and mirrors structured content into a text block when there is no content. */
function completeResult(
  def: ToolDef,
  result: CallToolResult & JsonObject,
  checked: ValidationResult | undefined,
): JsonObject {
  if (checked && !checked.ok) {
    throw new JsonRpcError(
      ErrorCode.InternalError,
      `Tool ${def.name} returned structuredContent that does not match its outputSchema: ${checked.issues.join('; ')}`,
    );
  }
  if (result.content === undefined) {
    const text = result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
    return { ...result, content: text === '' ? [] : [{ type: 'text', text }] };
  }
  return result;
}

function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}
