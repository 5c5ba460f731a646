// Content blocks as readable text: text as it is, media and blobs described (or saved to files with
// `--save-media DIR`), resource links and embedded resources named.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContentBlock, ResourceContents } from '../../spec/types.js';

/** Where media and blobs are saved, if anywhere; counts the files written so names stay unique. */
export class MediaSaver {
  readonly #dir: string | undefined;
  #count = 0;

  constructor(dir: string | undefined) {
    this.#dir = dir;
  }

  /** Saves base64 `data` of `mimeType`; resolves with the file written, or undefined when not saving. */
  async save(data: string, mimeType: string | undefined, stem: string): Promise<string | undefined> {
    if (this.#dir === undefined) return undefined;
    await mkdir(this.#dir, { recursive: true });
    this.#count++;
    const safe =
      stem
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60) || 'content';
    const file = join(this.#dir, `${this.#count}-${safe}${extensionOf(mimeType)}`);
    await writeFile(file, Buffer.from(data, 'base64'));
    return file;
  }
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/svg+xml': '.svg',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/mpeg': '.mp3',
  'audio/ogg': '.ogg',
  'application/pdf': '.pdf',
  'application/json': '.json',
  'text/plain': '.txt',
};

function extensionOf(mimeType: string | undefined): string {
  return (mimeType === undefined ? undefined : EXTENSIONS[mimeType]) ?? '.bin';
}

/** The size in bytes of base64 data. */
function bytesOf(base64: string): number {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - pad);
}

/** A content block as text lines. */
export async function renderBlock(block: ContentBlock, saver: MediaSaver): Promise<string> {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio': {
      const file = await saver.save(block.data, block.mimeType, block.type);
      const what = `[${block.type} ${block.mimeType}, ${bytesOf(block.data)} bytes]`;
      return file === undefined ? `${what} (save with --save-media DIR)` : `${what} saved to ${file}`;
    }
    case 'resource_link':
      return `[resource link] ${block.uri}${block.name ? ` (${block.name})` : ''}${block.mimeType ? ` ${block.mimeType}` : ''}`;
    case 'resource':
      return `[resource ${block.resource.uri}]\n${await renderContents(block.resource, saver)}`;
    default:
      return `[${(block as { type?: unknown }).type ?? 'unknown'} content] ${JSON.stringify(block)}`;
  }
}

/** A resource's contents as text: its text, or its blob described or saved. */
export async function renderContents(contents: ResourceContents, saver: MediaSaver): Promise<string> {
  if ('text' in contents) return contents.text;
  const name =
    contents.uri
      .split(/[/:]/)
      .filter((p) => p !== '')
      .pop() ?? 'blob';
  const file = await saver.save(contents.blob, contents.mimeType, name);
  const what = `[blob ${contents.mimeType ?? 'application/octet-stream'}, ${bytesOf(contents.blob)} bytes]`;
  return file === undefined ? `${what} (save with --save-media DIR)` : `${what} saved to ${file}`;
}

/** Content blocks as text, one after the other. */
export async function renderBlocks(blocks: readonly ContentBlock[], saver: MediaSaver): Promise<string> {
  const parts: string[] = [];
  for (const block of blocks) parts.push(await renderBlock(block, saver));
  return parts.join('\n');
}
