// Plain-text formatting shared by the example client and the demo: short, one line per item, base64 cut.
import type {
  ContentBlock,
  Prompt,
  Resource,
  ResourceContents,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../../src/index.js';

/** Cuts `text` to `max` characters (with an ellipsis) and folds it onto one line. */
export function truncate(text: string, max = 80): string {
  const line = text.replace(/\s*\n\s*/g, ' ⏎ ');
  if (line.length <= max) return line;
  // At the last word boundary that fits (a word is never cut), unless the first word alone is longer than half.
  const cut = line.slice(0, max - 1);
  const space = cut.search(/\s\S*$/);
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** A section title. */
export function heading(title: string): string {
  return `\n== ${title} ${'='.repeat(Math.max(3, 72 - title.length))}`;
}

/** Lines of `label  text` pairs with the labels aligned. */
export function table(rows: [string, string][], indent = '  '): string[] {
  const width = Math.min(48, Math.max(0, ...rows.map(([label]) => label.length)));
  return rows.map(([label, text]) => `${indent}${label.padEnd(width)}  ${text}`.trimEnd());
}

/** `logging, tools (listChanged), resources (subscribe, listChanged)`. */
export function describeCapabilities(caps: ServerCapabilities | object | undefined): string {
  if (caps === undefined) return '(none)';
  const parts = Object.entries(caps).map(([name, value]) => {
    const flags =
      typeof value === 'object' && value !== null
        ? Object.entries(value)
            .filter(([, v]) => v === true || (typeof v === 'object' && v !== null))
            .map(([k]) => k)
        : [];
    return flags.length > 0 ? `${name} (${flags.join(', ')})` : name;
  });
  return parts.length > 0 ? parts.join(', ') : '(none)';
}

/** `name(a*, b)`: a tool's arguments from its input schema, required ones starred. */
export function toolSignature(tool: Tool): string {
  const properties = tool.inputSchema.properties;
  const required = new Set(
    Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [],
  );
  const names = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  return `${tool.name}(${names.map((n) => (required.has(n) ? `${n}*` : n)).join(', ')})`;
}

/** Table rows for a tool list. */
export function toolRows(tools: Tool[]): [string, string][] {
  return tools.map((t) => [
    toolSignature(t),
    truncate(t.description ?? '', 80) + (t.outputSchema ? ' [structured]' : ''),
  ]);
}

/** Table rows for a resource list. */
export function resourceRows(resources: Resource[]): [string, string][] {
  return resources.map((r) => [r.uri, [r.mimeType, r.description ?? r.name].filter(Boolean).join(' · ')]);
}

/** Table rows for a template list. */
export function templateRows(templates: ResourceTemplate[]): [string, string][] {
  return templates.map((t) => [
    t.uriTemplate,
    [t.mimeType, t.description ?? t.name].filter(Boolean).join(' · '),
  ]);
}

/** Table rows for a prompt list (required arguments starred). */
export function promptRows(prompts: Prompt[]): [string, string][] {
  return prompts.map((p) => {
    const args = (p.arguments ?? []).map((a) => (a.required ? `${a.name}*` : a.name));
    return [`${p.name}(${args.join(', ')})`, truncate(p.description ?? '', 70)];
  });
}

/** `iVBORw0KGgo…(96 chars)`. */
export function base64Preview(data: string): string {
  return data.length <= 16 ? data : `${data.slice(0, 12)}…(${data.length} chars)`;
}

/** One line for a content block of a tool result or prompt message. */
export function describeContent(block: ContentBlock, max = 80): string {
  switch (block.type) {
    case 'text':
      return `text: ${truncate(block.text, max)}`;
    case 'image':
    case 'audio':
      return `${block.type} ${block.mimeType}: ${base64Preview(block.data)}`;
    case 'resource':
      return `resource ${describeResourceContents(block.resource)}`;
    case 'resource_link':
      return `link ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}`;
    default:
      return `${(block as { type: string }).type}: ${truncate(JSON.stringify(block))}`;
  }
}

/** One line for resource contents: `uri (mime): text` or `uri (mime): blob …`. */
export function describeResourceContents(contents: ResourceContents): string {
  const head = `${contents.uri}${contents.mimeType ? ` (${contents.mimeType})` : ''}`;
  return 'text' in contents
    ? `${head}: ${truncate(contents.text, 60)}`
    : `${head}: blob ${base64Preview(contents.blob)}`;
}

/** The message of any thrown value. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
