// What `mcpkit skills` does once it runs (loaded only then).
import type { SkillEntry } from '../../../spec/skills.js';
import { splitTarget } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { out, outJson, table } from '../../shared/output.js';
import { withConnection } from '../../shared/session.js';
import type { SkillsFlags } from './flags.js';

/** Lists the target's skills, or shows the one named (its manifest, or with `--file` one of its files). */
export async function skills(words: readonly string[], flags: SkillsFlags): Promise<number> {
  const { target, rest } = splitTarget(words);
  const [name, ...extra] = rest;
  if (extra.length > 0) throw new CliError(ExitCode.usage, 'skills takes at most one skill name or URI');
  if (flags.file !== undefined && name === undefined)
    throw new CliError(ExitCode.usage, '--file needs a skill: mcpkit skills <target> <name> --file PATH');
  await withConnection(target, flags, async ({ client, timeout }, format) => {
    const all = name?.includes('://') ? undefined : await client.listSkills({ timeout });
    if (name === undefined) {
      if (format === 'json') return outJson({ skills: all });
      const rows = (all ?? []).map((s) => [
        s.frontmatter.name,
        s.frontmatter.description,
        s.resources === 'dynamic' ? 'dynamic' : String(s.resources.length),
        s.uri,
      ]);
      return out(
        rows.length === 0 ? 'No skills listed.' : table(['NAME', 'DESCRIPTION', 'FILES', 'URI'], rows),
      );
    }
    const entry = all ? pick(all, name) : await client.getSkill(name, { timeout });
    if (flags.file !== undefined) {
      const root = entry.uri.slice(0, -'SKILL.md'.length);
      const uri = flags.file.includes('://') ? flags.file : root + flags.file;
      const file = await client.readSkillFile(entry, uri, { timeout });
      if (format === 'json')
        return outJson({ uri, mimeType: file.mimeType, text: file.text, size: file.bytes.byteLength });
      if (file.text === undefined)
        return out(
          `${uri}: ${file.bytes.byteLength} bytes of ${file.mimeType ?? 'binary'} (not text; --format json for details)`,
        );
      return process.stdout.write(file.text.endsWith('\n') ? file.text : `${file.text}\n`);
    }
    if (format === 'json') return outJson({ skill: entry });
    out(`${entry.frontmatter.name}  ${entry.uri}`);
    for (const [key, value] of Object.entries(entry.frontmatter))
      if (key !== 'name') out(`  ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    out('');
    if (entry.resources === 'dynamic') return out('Files: dynamic (the server publishes no digests)');
    const root = entry.uri.slice(0, -'SKILL.md'.length);
    out(
      table(
        ['FILE', 'SIZE', 'DIGEST'],
        entry.resources.map((r) => [
          r.uri.startsWith(root) ? r.uri.slice(root.length) : r.uri,
          String(r.size),
          r.digest,
        ]),
        90,
      ),
    );
  });
  return 0;
}

/** The one listed skill named `name` (or whose URI it is); several of one name ask for the URI. */
function pick(all: readonly SkillEntry[], name: string): SkillEntry {
  const found = all.filter((s) => s.frontmatter.name === name || s.uri === name);
  if (found.length === 1) return found[0] as SkillEntry;
  if (found.length === 0)
    throw new CliError(
      ExitCode.usage,
      `No skill named "${name}" is listed; known: ${all.map((s) => s.frontmatter.name).join(', ') || 'none'}`,
    );
  throw new CliError(
    ExitCode.usage,
    `Several skills are named "${name}"; give one URI: ${found.map((s) => s.uri).join(', ')}`,
  );
}
