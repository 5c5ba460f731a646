import { McpkitError } from '../jsonrpc/errors.js';
import { compileJsonSchema, type Validator } from '../schema/index.js';
import type { CallToolResult, Tool } from '../spec/types.js';

/**
 * Output-schema validators of the tools last listed, compiled lazily and once per tool list,
 * so `callTool` can check `structuredContent` without recompiling.
 */
export class ToolCache {
  #validators = new Map<string, { schema: object; validator: Validator | undefined }>();

  /** Remembers the output schemas of a fresh tool list (replacing the previous list). */
  update(tools: readonly Tool[]): void {
    const next = new Map<string, { schema: object; validator: Validator | undefined }>();
    for (const tool of tools) {
      if (!tool.outputSchema) continue;
      const old = this.#validators.get(tool.name);
      // Keep the compiled validator when the schema did not change.
      const same = old && JSON.stringify(old.schema) === JSON.stringify(tool.outputSchema);
      next.set(tool.name, same && old ? old : { schema: tool.outputSchema, validator: undefined });
    }
    this.#validators = next;
  }

  /** Checks a tool result against the tool's output schema, if one is known. */
  check(name: string, result: CallToolResult): void {
    const entry = this.#validators.get(name);
    if (!entry || result.isError) return;
    if (result.structuredContent === undefined) {
      throw new McpkitError(
        'INVALID_RESULT',
        `Tool ${name} has an outputSchema but returned no structuredContent`,
      );
    }
    entry.validator ??= compileJsonSchema(entry.schema);
    const checked = entry.validator.validate(result.structuredContent);
    if (!checked.ok) {
      throw new McpkitError(
        'INVALID_RESULT',
        `Tool ${name} returned structuredContent that does not match its outputSchema: ${checked.issues.join('; ')}`,
      );
    }
  }
}
