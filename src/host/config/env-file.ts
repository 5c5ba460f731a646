/**
 * Parses a dotenv file (VS Code's and Cursor's `envFile`): `KEY=value` lines, `export ` prefixes, `#` comments,
 * single-quoted values taken literally, double-quoted values with `\n` escapes. A line that is none of these is
 * reported by its number.
 */
export function parseEnvFile(text: string): { env: Record<string, string>; badLines: number[] } {
  const env: Record<string, string> = {};
  const badLines: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) {
      badLines.push(i + 1);
      continue;
    }
    env[m[1] as string] = unquote(m[2] as string);
  }
  return { env, badLines };
}

function unquote(raw: string): string {
  if (raw.length >= 2 && raw.startsWith("'") && raw.endsWith("'")) return raw.slice(1, -1);
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"'))
    return raw.slice(1, -1).replace(/\\([nrt"\\])/g, (_, c: string) => ESCAPES[c] ?? c);
  // An unquoted value ends at a comment preceded by whitespace.
  const hash = raw.search(/\s#/);
  return (hash < 0 ? raw : raw.slice(0, hash)).trim();
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };
