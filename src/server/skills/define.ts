import { McpkitError } from '../../jsonrpc/errors.js';
import { parseSkillMarkdown } from '../../spec/frontmatter.js';
import {
  isSkillName,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  type SkillEntry,
  safeSegments,
} from '../../spec/skills.js';

/** A skill defined in code (or loaded from a folder by `loadSkillFolder` of `mcpkit/node`). */
export interface SkillDefinition {
  /**
   * Where the skill lives in the server's skill namespace (`acme/billing/refunds`): its last segment must be the
   * frontmatter's `name`. Default: the name alone.
   */
  path?: string;
  /** The skill's files by path relative to its folder (`SKILL.md` required; `/` separates folders). */
  files: { readonly [path: string]: string | Uint8Array };
  /** The URI scheme its files are served under. Default `skill`. */
  scheme?: string;
}

/** A checked skill: its path, URIs, frontmatter and the bytes of every file. */
export interface DefinedSkill {
  readonly path: string;
  /** `<scheme>://<path>`: the skill's root directory. */
  readonly root: string;
  /** The URI of its `SKILL.md`. */
  readonly uri: string;
  readonly frontmatter: SkillEntry['frontmatter'];
  /** Relative path → raw bytes, `SKILL.md` first. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

const encoder = new TextEncoder();

/**
 * Checks a skill definition: `SKILL.md` with `name` and `description`, the name matching the path's last segment,
 * every file path inside the skill's folder (no `..`, `.`, absolute or escaped segments), within the extension's
 * limits. Any failure is an INVALID_DEFINITION naming what is wrong.
 */
export function defineSkill(def: SkillDefinition): DefinedSkill {
  const skillMd = def.files['SKILL.md'];
  if (skillMd === undefined) throw invalid('a skill needs a SKILL.md at its root');
  const text = typeof skillMd === 'string' ? skillMd : new TextDecoder().decode(skillMd);
  const { frontmatter } = parseSkillMarkdown(text);
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || typeof description !== 'string' || description.trim() === '')
    throw invalid('the SKILL.md frontmatter needs a string "name" and a non-empty "description"');
  if (!isSkillName(name))
    throw invalid(`"${name}" is not a skill name (lowercase letters, digits and single hyphens, at most 64)`);
  const path = def.path ?? name;
  const segments = safeSegments(path);
  if (!segments) throw invalid(`the skill path "${path}" is not a plain relative path`);
  if (segments[segments.length - 1] !== name)
    throw invalid(`the skill path "${path}" must end with the skill's name "${name}"`);
  const scheme = def.scheme ?? 'skill';
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) throw invalid(`"${scheme}" is not a URI scheme`);
  const files = new Map<string, Uint8Array>();
  let total = 0;
  const paths = [
    'SKILL.md',
    ...Object.keys(def.files)
      .filter((p) => p !== 'SKILL.md')
      .sort(),
  ];
  for (const rel of paths) {
    if (!safeSegments(rel)) throw invalid(`the file "${rel}" would leave the skill's folder`);
    const value = def.files[rel] as string | Uint8Array;
    const bytes = typeof value === 'string' ? encoder.encode(value) : value;
    total += bytes.byteLength;
    files.set(rel, bytes);
  }
  if (files.size > MAX_SKILL_FILES) throw invalid(`${path}: more than ${MAX_SKILL_FILES} files`);
  if (total > MAX_SKILL_BYTES) throw invalid(`${path}: more than ${MAX_SKILL_BYTES} bytes of files`);
  const root = `${scheme}://${path}`;
  return {
    path,
    root,
    uri: `${root}/SKILL.md`,
    frontmatter: frontmatter as SkillEntry['frontmatter'],
    files,
  };
}

function invalid(why: string): McpkitError {
  return new McpkitError('INVALID_DEFINITION', `Skill: ${why}`);
}
