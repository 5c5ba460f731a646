import type {
  ContentBlock,
  EmbeddedResource,
  ResourceContents,
  ResourceLink,
  ToolResultContent,
} from '../../spec/types.js';

/** What every model API takes in some form: text, an image, audio (each adapter says what it does with audio). */
export type Part =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'audio'; data: string; mimeType: string };

/** MCP content blocks as parts: resource links and embedded resources become text (or an image), once. */
export function partsOf(blocks: readonly ContentBlock[]): Part[] {
  const parts: Part[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: block.text });
        break;
      case 'image':
      case 'audio':
        parts.push({ type: block.type, data: block.data, mimeType: block.mimeType });
        break;
      case 'resource_link':
        parts.push({ type: 'text', text: linkText(block) });
        break;
      case 'resource':
        parts.push(resourcePart(block.resource));
        break;
      default:
        // A block of a later revision: said, not dropped silently.
        parts.push({ type: 'text', text: `[content of type ${String((block as EmbeddedResource).type)}]` });
    }
  }
  return parts;
}

/** A tool result as parts: its content, then its structured content when no text block already carries it. */
export function toolResultParts(result: ToolResultContent): Part[] {
  const parts = partsOf(result.content).filter((p) => p.type !== 'text' || p.text !== '');
  const structured = result.structuredContent;
  if (structured !== undefined) {
    const json = JSON.stringify(structured);
    if (!parts.some((p) => p.type === 'text' && sameJson(p.text, json)))
      parts.push({ type: 'text', text: `Structured content: ${json}` });
  }
  if (parts.length === 0) parts.push({ type: 'text', text: '(the tool returned no content)' });
  return parts;
}

/** One resource's contents as a part: text with its URI, an image, or a note about binary data. */
export function resourcePart(contents: ResourceContents): Part {
  const mime = contents.mimeType === undefined ? '' : ` (${contents.mimeType})`;
  if ('text' in contents) return { type: 'text', text: `Resource ${contents.uri}${mime}:\n${contents.text}` };
  if (contents.mimeType?.startsWith('image/'))
    return { type: 'image', data: contents.blob, mimeType: contents.mimeType };
  const bytes = Math.floor((contents.blob.length * 3) / 4);
  return {
    type: 'text',
    text: `[Resource ${contents.uri}${mime}: about ${bytes} bytes of binary data, not shown]`,
  };
}

function linkText(link: ResourceLink): string {
  const name = link.title ?? link.name;
  const mime = link.mimeType === undefined ? '' : ` (${link.mimeType})`;
  const about = link.description === undefined ? '' : `: ${link.description}`;
  return `Resource link: ${name} <${link.uri}>${mime}${about}`;
}

function sameJson(text: string, json: string): boolean {
  const t = text.trim();
  if (t === json) return true;
  if (!t.startsWith('{')) return false;
  try {
    return JSON.stringify(JSON.parse(t)) === json;
  } catch {
    return false;
  }
}
