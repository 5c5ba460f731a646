// Tool definitions shared by the in-process micro-benchmarks, built fresh on every call (as a server module would
// build them), and the canned tools/list result a client benchmark is answered with.
import { z } from 'zod';

/** One tool to register, with zod schemas (every implementation under test accepts zod 4). */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject | undefined;
}

/** The `echo` tool plus `count - 1` search-like tools with input and (when `outputs`) output schemas. */
export function makeTools(count: number, outputs: boolean): ToolSpec[] {
  const tools: ToolSpec[] = [
    {
      name: 'echo',
      description: 'Echoes its text argument.',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: undefined,
    },
  ];
  for (let i = 1; i < count; i++) {
    tools.push({
      name: `search_${i}`,
      description: `Searches collection ${i} and returns the matching items.`,
      inputSchema: z.object({
        query: z.string().describe('What to look for'),
        limit: z.number().int().min(1).max(100).optional(),
        tags: z.array(z.string()).optional(),
      }),
      outputSchema: outputs
        ? z.object({
            [`items_${i}`]: z.array(z.object({ id: z.string(), score: z.number() })),
            total: z.number().int(),
          })
        : undefined,
    });
  }
  return tools;
}

/** The structured result every `search_*` handler returns (valid against its output schema). */
export function searchResult(name: string): Record<string, unknown> {
  return { [`items_${name.slice('search_'.length)}`]: [], total: 0 };
}

/** A tools/list result of `count` tools, each with a distinct input and output JSON Schema, as JSON text. */
export function cannedToolsList(count: number): string {
  const tools = [];
  for (let i = 0; i < count; i++) {
    tools.push({
      name: `tool_${i}`,
      description: `Tool number ${i}.`,
      inputSchema: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
        required: ['query'],
      },
      outputSchema: {
        type: 'object',
        properties: {
          [`items_${i}`]: {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, score: { type: 'number' } },
              required: ['id', 'score'],
            },
          },
          total: { type: 'integer' },
        },
        required: [`items_${i}`, 'total'],
      },
    });
  }
  return JSON.stringify({ tools });
}

const INITIALIZE_RESULT = JSON.stringify({
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'bench-canned', version: '1.0.0' },
});

/**
 * A scripted server for client benchmarks: answers initialize and tools/list from canned JSON text, parsing a fresh
 * copy per reply as a wire would, and ignores notifications.
 */
export function cannedResponder(toolCount: number): (message: unknown) => object | undefined {
  const list = cannedToolsList(toolCount);
  return (message) => {
    const m = message as { id?: number | string; method?: string };
    if (m.id === undefined || m.method === undefined) return undefined;
    const id = JSON.stringify(m.id);
    if (m.method === 'initialize')
      return JSON.parse(`{"jsonrpc":"2.0","id":${id},"result":${INITIALIZE_RESULT}}`);
    if (m.method === 'tools/list') return JSON.parse(`{"jsonrpc":"2.0","id":${id},"result":${list}}`);
    if (m.method === 'ping') return { jsonrpc: '2.0', id: m.id, result: {} };
    return { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } };
  };
}
