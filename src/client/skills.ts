import { McpkitError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/types.js';
import { parseSkillMarkdown } from '../spec/frontmatter.js';
import {
  fileInSkill,
  type ListSkillsResult,
  SKILLS_EXTENSION,
  type SkillEntry,
  type SkillResource,
  type SkillsCapability,
  skillDigest,
  skillEntryProblem,
} from '../spec/skills.js';
import type { ReadResourceResult, Resource, ServerCapabilities } from '../spec/types.js';

/** The bytes of one skill file, checked against its entry. */
export interface SkillFile {
  uri: string;
  /** The raw bytes (what the digest covers). */
  bytes: Uint8Array;
  /** The bytes as UTF-8 text, when the server sent text. */
  text?: string;
  mimeType?: string;
}

/** The skills extension's settings a server declared (`extensions`, or `experimental` before 2026-07-28). */
export function skillsCapability(caps: ServerCapabilities | undefined): SkillsCapability | undefined {
  for (const key of ['extensions', 'experimental'] as const) {
    const group = caps?.[key] as { [name: string]: unknown } | undefined;
    const entry = group && typeof group === 'object' ? group[SKILLS_EXTENSION] : undefined;
    if (typeof entry === 'object' && entry !== null) return entry as SkillsCapability;
  }
  return undefined;
}

/** A `skills/list` page, every entry checked (a malformed one is INVALID_RESULT naming it). */
export function checkSkillsPage(result: JsonObject): ListSkillsResult {
  if (!Array.isArray(result.skills))
    throw new McpkitError('INVALID_RESULT', 'skills/list: the result has no "skills" array');
  for (const entry of result.skills) checkEntry(entry, 'skills/list');
  const page: ListSkillsResult = { skills: result.skills as SkillEntry[] };
  if (typeof result.nextCursor === 'string') page.nextCursor = result.nextCursor;
  return page;
}

/** The entry of a `skills/get` result, checked, and for the URI that was asked. */
export function checkSkillGet(result: JsonObject, uri: string): SkillEntry {
  const entry = checkEntry(result.skill, 'skills/get');
  if (entry.uri !== uri)
    throw new McpkitError('INVALID_RESULT', `skills/get: asked for ${uri}, the server answered ${entry.uri}`);
  return entry;
}

function checkEntry(entry: unknown, method: string): SkillEntry {
  const problem = skillEntryProblem(entry);
  if (problem) throw new McpkitError('INVALID_RESULT', `${method}: ${problem}`);
  return entry as SkillEntry;
}

/**
 * Checks the `resources/read` result of a skill file against the skill's entry: the URI must be listed (an unlisted
 * file is a change to the skill), the bytes must have the listed size and SHA-256 digest, and a `SKILL.md` must carry
 * the entry's frontmatter field for field. Any failure is SKILL_INTEGRITY; the content is not returned.
 */
export async function verifySkillFile(
  entry: SkillEntry,
  uri: string,
  result: ReadResourceResult,
): Promise<SkillFile> {
  const listed = listedFile(entry, uri);
  const content = result.contents.find((c) => c.uri === uri) ?? result.contents[0];
  if (!content || result.contents.length !== 1)
    throw integrity(`${uri}: the server answered ${result.contents.length} contents, not one file`);
  let bytes: Uint8Array;
  let text: string | undefined;
  if ('text' in content && typeof content.text === 'string') {
    text = content.text;
    bytes = new TextEncoder().encode(text);
  } else if ('blob' in content && typeof content.blob === 'string') {
    bytes = fromBase64(content.blob, uri);
  } else throw integrity(`${uri}: the server answered neither text nor a blob`);
  if (listed) {
    if (bytes.byteLength !== listed.size)
      throw integrity(`${uri}: ${bytes.byteLength} bytes where the entry lists ${listed.size}`);
    const digest = await skillDigest(bytes);
    if (digest !== listed.digest)
      throw integrity(`${uri}: its digest ${digest} is not the listed ${listed.digest}`);
  }
  if (uri === entry.uri) {
    const frontmatter = parseSkillMarkdown(text ?? new TextDecoder().decode(bytes)).frontmatter;
    if (JSON.stringify(sortKeys(frontmatter)) !== JSON.stringify(sortKeys(entry.frontmatter)))
      throw integrity(`${uri}: its frontmatter differs from the skill's entry`);
  }
  const file: SkillFile = { uri, bytes };
  if (text !== undefined) file.text = text;
  if (content.mimeType !== undefined) file.mimeType = content.mimeType;
  return file;
}

/**
 * The manifest line of `uri` in `entry` (undefined for a dynamic skill); SKILL_INTEGRITY for a URI outside the skill
 * (`../`) or not listed, checked before anything is asked of the server.
 */
export function listedFile(entry: SkillEntry, uri: string): SkillResource | undefined {
  if (uri !== entry.uri && fileInSkill(entry.uri, uri) === undefined)
    throw integrity(`${uri} is not inside the skill ${entry.uri}`);
  if (entry.resources === 'dynamic') return undefined;
  const listed = entry.resources.find((r) => r.uri === uri);
  if (!listed)
    throw integrity(`${uri} is not listed in the skill's entry: the skill changed (get its entry again)`);
  return listed;
}

/** The children of a `resources/directory/read` page. */
export function checkDirectoryPage(result: JsonObject): { resources: Resource[]; nextCursor?: string } {
  if (!Array.isArray(result.resources))
    throw new McpkitError('INVALID_RESULT', 'resources/directory/read: the result has no "resources" array');
  const page: { resources: Resource[]; nextCursor?: string } = { resources: result.resources as Resource[] };
  if (typeof result.nextCursor === 'string') page.nextCursor = result.nextCursor;
  return page;
}

function integrity(why: string): McpkitError {
  return new McpkitError('SKILL_INTEGRITY', `Skill file refused: ${why}`);
}

function fromBase64(blob: string, uri: string): Uint8Array {
  try {
    const bin = atob(blob);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    throw integrity(`${uri}: the blob is not base64`);
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: { [key: string]: unknown } = {};
  for (const key of Object.keys(value).sort()) {
    const v = sortKeys((value as { [key: string]: unknown })[key]);
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
