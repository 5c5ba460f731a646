import { McpkitError } from '../jsonrpc/errors.js';
import { compileJsonSchema, type Validator } from '../schema/index.js';
import { type ParamHeader, readParamHeaders, valueAtPath } from '../spec/tool-headers.js';
import type { CallToolResult, Tool } from '../spec/types.js';
import { paramValue } from './tool-headers.js';

interface Known {
  schema: object | undefined;
  validator: Validator | undefined;
  headers: readonly ParamHeader[] | undefined;
}

/** Told about each tool dropped from a list for an invalid `x-mcp-header` annotation (the spec asks for a warning). */
export type DroppedTool = (error: McpkitError) => void;

/**
 * What the client learned from the last tool list: output-schema validators (compiled lazily and once
 * per list, so `callTool` never recompiles) and the `x-mcp-header` parameters to mirror into headers.
 */
export class ToolCache {
  #tools = new Map<string, Known>();

  /**
   * Remembers a fresh tool list; returns it without tools whose `x-mcp-header` annotations are invalid when
   * `dropInvalidHeaders` (a rule of the 2026-07-28 revision; older revisions have no such annotations), telling
   * `dropped` why.
   */
  update(tools: readonly Tool[], dropInvalidHeaders: boolean, dropped?: DroppedTool): Tool[] {
    const next = new Map<string, Known>();
    const kept: Tool[] = [];
    for (const tool of tools) {
      const read = readParamHeaders(tool.inputSchema);
      if (!read.ok && dropInvalidHeaders) {
        const message = `Tool ${tool.name} was left out of tools/list: the x-mcp-header annotation of "${read.property}" ${read.reason}`;
        dropped?.(new McpkitError('INVALID_DEFINITION', message));
        continue;
      }
      const headers = read.ok ? read.headers : undefined;
      kept.push(tool);
      const old = this.#tools.get(tool.name);
      // Keep the compiled validator when the schema did not change.
      const same =
        old?.schema !== undefined && JSON.stringify(old.schema) === JSON.stringify(tool.outputSchema);
      next.set(tool.name, {
        schema: tool.outputSchema,
        validator: same ? old?.validator : undefined,
        headers: headers && headers.length > 0 ? headers : undefined,
      });
    }
    this.#tools = next;
    return kept;
  }

  /** The `Mcp-Param-*` headers of a call (raw values; the HTTP transport encodes them), when the tool declares any. */
  headers(name: string, args: Record<string, unknown> | undefined): Record<string, string> | undefined {
    const headers = this.#tools.get(name)?.headers;
    if (!headers) return undefined;
    const out: Record<string, string> = {};
    for (const { header, path } of headers) {
      const value = paramValue(valueAtPath(args, path));
      if (value !== undefined) out[`mcp-param-${header.toLowerCase()}`] = value;
    }
    return out;
  }

  /** Checks a tool result against the tool's output schema, if one is known. */
  async check(name: string, result: CallToolResult): Promise<void> {
    const entry = this.#tools.get(name);
    if (!entry?.schema || result.isError) return;
    if (result.structuredContent === undefined) {
      throw new McpkitError(
        'INVALID_RESULT',
        `Tool ${name} has an outputSchema but returned no structuredContent`,
      );
    }
    entry.validator ??= compileJsonSchema(entry.schema);
    const checked = await entry.validator.validate(result.structuredContent);
    if (!checked.ok) {
      throw new McpkitError(
        'INVALID_RESULT',
        `Tool ${name} returned structuredContent that does not match its outputSchema: ${checked.issues.join('; ')}`,
      );
    }
  }
}
