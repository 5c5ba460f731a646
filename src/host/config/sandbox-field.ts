// The `sandbox` field of an mcpkit server entry and of its `host` block: `true`, `false` or grants, variables expanded
// in the paths and hosts, then checked (unknown fields, relative or missing paths, `/` or the home folder without
// `force`) into a ConfigError naming the field.
import { checkSandboxSetting, type SandboxSetting } from '../sandbox/policy.js';
import type { FieldReader } from './fields.js';

/** Reads `field` of `r` as a sandbox setting (undefined when absent), expanding each string of its lists. */
export async function readSandboxField(
  r: FieldReader,
  field: string,
  home: string,
  expand: (value: string, field: string) => Promise<string> = async (value) => value,
): Promise<SandboxSetting | undefined> {
  if (!r.has(field)) return undefined;
  const raw = r.object[field];
  let value: unknown = raw;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const copy: Record<string, unknown> = { ...raw };
    for (const key of ['read', 'write', 'network']) {
      const list = copy[key];
      if (!Array.isArray(list)) continue;
      copy[key] = await Promise.all(
        list.map((item, i) => (typeof item === 'string' ? expand(item, `${field}.${key}[${i}]`) : item)),
      );
    }
    value = copy;
  }
  const checked = checkSandboxSetting(value, { home });
  if ('problems' in checked) {
    const first = checked.problems[0];
    throw r.error(
      first?.message ?? 'invalid',
      first?.field === undefined ? field : `${field}.${first.field}`,
    );
  }
  return checked.setting;
}
