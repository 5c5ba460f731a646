import type { Tool } from '../../spec/types.js';

/**
 * About how many tokens the definitions of `tools` take in a model request: the characters of their JSON (name,
 * description, input schema) over four. A dependency-free estimate, for deciding when tool search pays
 * (`bench/tool-search.ts` compares it with a real tokenizer).
 */
export function estimateToolTokens(
  tools: readonly Pick<Tool, 'name' | 'description' | 'inputSchema'>[],
): number {
  let chars = 0;
  for (const t of tools) chars += JSON.stringify([t.name, t.description ?? '', t.inputSchema]).length + 24;
  return Math.ceil(chars / 4);
}
