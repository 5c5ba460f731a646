import { ConfigError } from './config-error.js';

/**
 * Parses JSON, or JSON with comments and trailing commas (VS Code's `mcp.json` is JSONC). Comments and trailing
 * commas are blanked out in one linear pass that respects strings, then `JSON.parse` reads the rest; a syntax error
 * names the file, the line and the column.
 */
export function parseConfigText(text: string, file: string, jsonc: boolean): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const plain = jsonc ? stripJsonc(source) : source;
  try {
    return JSON.parse(plain) as unknown;
  } catch (cause) {
    throw new ConfigError({ file }, `syntax error: ${syntaxDetail(cause, plain)}`, { cause });
  }
}

/** The text with `//` and `/* *\/` comments and trailing commas replaced by spaces (offsets are kept). */
export function stripJsonc(text: string): string {
  const out: string[] = [];
  let i = 0;
  let lastSignificant = -1; // index in `out` of the last non-blank character outside comments
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      const end = stringEnd(text, i);
      out.push(text.slice(i, end));
      lastSignificant = out.length - 1;
      i = end;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      out.push(' '.repeat(stop - i));
      i = stop;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out.push(text.slice(i, stop).replace(/[^\n]/g, ' '));
      i = stop;
    } else {
      if ((c === '}' || c === ']') && lastSignificant >= 0 && out[lastSignificant] === ',')
        out[lastSignificant] = ' ';
      out.push(c);
      if (!/\s/.test(c)) lastSignificant = out.length - 1;
      i++;
    }
  }
  return out.join('');
}

/** The index just past the string starting at `start` (an unterminated string runs to the end). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return text.length;
}

function syntaxDetail(cause: unknown, text: string): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  const at = /position (\d+)/.exec(message);
  if (!at) return message;
  const offset = Number(at[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `${message} (line ${line}, column ${column})`;
}
