import type { FrontmatterValue } from './frontmatter.js';

/** The Skills extension's identifier (SEP-2640), under `capabilities.extensions` (and `experimental` before 2026-07-28). */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** Most files one skill may list (SEP-2640 limits; `SKILL.md` counted). */
export const MAX_SKILL_FILES = 512;

/** Most bytes of all of one skill's files together (16 MiB, SEP-2640 limits). */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** The media type of a directory resource (`resources/directory/read`). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/** One file of a skill's manifest: its URI, `sha256:<64 hex>` digest of its raw bytes, and its size in bytes. */
export interface SkillResource {
  uri: string;
  digest: string;
  size: number;
}

/** A skill entry of `skills/list` and `skills/get`. */
export interface SkillEntry {
  /** The URI of the skill's `SKILL.md`. */
  uri: string;
  /** The `SKILL.md` frontmatter, verbatim, as JSON (always `name` and `description`). */
  frontmatter: { name: string; description: string; [key: string]: FrontmatterValue };
  /** Every file of the skill with its digest and size, or `"dynamic"` (no integrity offered). */
  resources: SkillResource[] | 'dynamic';
}

/** A page of `skills/list`. */
export interface ListSkillsResult {
  skills: SkillEntry[];
  nextCursor?: string;
}

/** The extension's settings in a server's capabilities. */
export interface SkillsCapability {
  /** Whether the server answers `resources/directory/read`. */
  directoryRead?: boolean;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-))*$/;

/** Whether `name` follows the Agent Skills naming rule (lowercase letters, digits, single hyphens, at most 64). */
export function isSkillName(name: string): boolean {
  return name.length <= 64 && NAME.test(name) && !name.endsWith('-');
}

/** `sha256:<hex>` of `bytes` (WebCrypto: runtime-neutral). */
export async function skillDigest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of hash) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

/**
 * The segments of a relative file path inside a skill, or undefined when it could leave the skill's folder or is
 * not plain (`..`, `.`, empty segments, a leading `/`, backslashes, percent-escapes, control characters).
 */
export function safeSegments(path: string): string[] | undefined {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('%')) return undefined;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return undefined;
  }
  const parts = path.split('/');
  for (const p of parts) if (p === '' || p === '.' || p === '..') return undefined;
  return parts;
}

/** The root directory URI of a skill (`skill://a/b` of `skill://a/b/SKILL.md`), or undefined for another URI. */
export function skillRootOf(skillMdUri: string): string | undefined {
  if (!skillMdUri.endsWith('/SKILL.md')) return undefined;
  const root = skillMdUri.slice(0, -'/SKILL.md'.length);
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(root);
  if (!scheme) return undefined;
  return safeSegments(root.slice(scheme[0].length)) ? root : undefined;
}

/** The path of `fileUri` relative to the skill whose `SKILL.md` is `skillMdUri`; undefined when outside it. */
export function fileInSkill(skillMdUri: string, fileUri: string): string | undefined {
  const root = skillRootOf(skillMdUri);
  if (root === undefined || !fileUri.startsWith(`${root}/`)) return undefined;
  const rel = fileUri.slice(root.length + 1);
  return safeSegments(rel) ? rel : undefined;
}

/**
 * Why `entry` is not a loadable skill entry (shape, digests, sizes, every file inside the skill, `SKILL.md` listed,
 * the URI's last segment equal to `frontmatter.name`, the limits), or undefined when it is.
 */
export function skillEntryProblem(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null) return 'a skill entry must be an object';
  const e = entry as { [key: string]: unknown };
  if (typeof e.uri !== 'string') return 'a skill entry needs a string "uri"';
  const root = skillRootOf(e.uri);
  if (root === undefined) return `"${e.uri}" is not the URI of a SKILL.md in a plain skill path`;
  const fm = e.frontmatter as { [key: string]: unknown } | undefined;
  if (typeof fm !== 'object' || fm === null || Array.isArray(fm))
    return `${e.uri}: "frontmatter" must be an object`;
  if (typeof fm.name !== 'string' || typeof fm.description !== 'string')
    return `${e.uri}: the frontmatter needs string "name" and "description"`;
  if (root.slice(root.lastIndexOf('/') + 1) !== fm.name && !root.endsWith(`://${fm.name}`))
    return `${e.uri}: the last segment of the skill path is not its name "${fm.name}"`;
  if (e.resources === 'dynamic') return undefined;
  if (!Array.isArray(e.resources)) return `${e.uri}: "resources" must be an array or "dynamic"`;
  if (e.resources.length > MAX_SKILL_FILES) return `${e.uri}: more than ${MAX_SKILL_FILES} files`;
  const seen = new Set<string>();
  let total = 0;
  for (const r of e.resources as unknown[]) {
    const file = r as { [key: string]: unknown };
    if (typeof file !== 'object' || file === null || typeof file.uri !== 'string')
      return `${e.uri}: a file entry needs a string "uri"`;
    if (file.uri !== e.uri && fileInSkill(e.uri, file.uri) === undefined)
      return `${e.uri}: the file "${file.uri}" is outside the skill's folder`;
    if (seen.has(file.uri)) return `${e.uri}: the file "${file.uri}" is listed twice`;
    seen.add(file.uri);
    if (typeof file.digest !== 'string' || !DIGEST.test(file.digest))
      return `${e.uri}: the file "${file.uri}" has no "sha256:<64 lowercase hex>" digest`;
    if (typeof file.size !== 'number' || !Number.isSafeInteger(file.size) || file.size < 0)
      return `${e.uri}: the file "${file.uri}" has no byte "size"`;
    total += file.size;
  }
  if (!seen.has(e.uri)) return `${e.uri}: "resources" does not list the SKILL.md itself`;
  if (total > MAX_SKILL_BYTES) return `${e.uri}: its files add up to more than ${MAX_SKILL_BYTES} bytes`;
  return undefined;
}

/** The media type a skill file is served with, by its extension (`text/markdown` for `.md`). */
export function skillFileMimeType(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MIME[ext] ?? 'application/octet-stream';
}

const MIME: { readonly [ext: string]: string } = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  py: 'text/x-python',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  sh: 'text/x-shellscript',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
};
