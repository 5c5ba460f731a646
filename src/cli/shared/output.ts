// What the `mcpkit` command prints: readable text by default, or with `--format json` one JSON document on stdout
// and errors as one JSON object on stderr. Only the CLI writes to the terminal; the library never does.
import { errorMessage } from '../../jsonrpc/errors.js';
import { CliError, type ExitCode, exitKind } from './exit.js';

/** The output format of a command. */
export type Format = 'text' | 'json';

/** Parses `--format`. */
export function parseFormat(value: string): Format {
  if (value === 'text' || value === 'json') return value;
  throw new CliError(1, `--format must be "text" or "json", got "${value}"`);
}

/**
 * Writes a line of text to stdout, for a person: without control characters (see {@link terminalSafe}), on a
 * terminal or not (piped through `tee` or `less -R`, or read later with `cat`, it reaches a terminal all the same).
 */
export function out(text: string): void {
  const shown = terminalSafe(text);
  process.stdout.write(shown.endsWith('\n') ? shown : `${shown}\n`);
}

/** Writes a line of text to stderr, for a person: without control characters, as {@link out}. */
export function note(text: string): void {
  const shown = terminalSafe(text);
  process.stderr.write(shown.endsWith('\n') ? shown : `${shown}\n`);
}

/** Prints the command's one JSON document on stdout. */
export function outJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints a failure: `error: …` (and details) as text, or `{"error": {…}}` as JSON on stderr. */
export function printError(error: unknown, code: ExitCode, format: Format): void {
  const message = errorMessage(error);
  const details = error instanceof CliError ? error.details : {};
  const errorCode = codeOf(error) ?? (error instanceof CliError ? codeOf(error.cause) : undefined);
  if (format === 'json') {
    const body: Record<string, unknown> = { kind: exitKind(code), exitCode: code, message, ...details };
    if (errorCode !== undefined) body.code = errorCode;
    process.stderr.write(`${JSON.stringify({ error: body })}\n`);
    return;
  }
  note(`error: ${message}`);
  const tail = details.stderr;
  if (typeof tail === 'string' && tail !== '') {
    note("--- the server's stderr (last lines) ---");
    note(tail);
  }
  const hint = details.hint;
  if (typeof hint === 'string') note(hint);
}

/**
 * A stdio transport's message without the stderr tail it ends with (`… Last stderr: …`): where the tail is shown
 * under the message (`details.stderr`), it is shown once.
 */
export function withoutStderrTail(message: string): string {
  return message.replace(/ Last stderr: [\s\S]*$/, '');
}

function codeOf(error: unknown): string | number | undefined {
  if (error instanceof Error && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' || typeof code === 'number') return code;
  }
  return undefined;
}

/**
 * C0 and C1 control characters but newline, tab and the carriage return of a CRLF line end (ESC and CSI begin the
 * escape sequences a server could use to rewrite a terminal; a lone carriage return overwrites the line).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * `text` without control characters other than newline, tab and CRLF line ends: what reaches a terminal from a
 * server (its descriptions, results, log messages) cannot move the cursor, retitle the window or hide earlier output.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, '');
}

/**
 * A plain table: a header row and aligned columns, each cell on one line (newlines folded, long cells cut to
 * `maxCell` characters; the last column is never padded).
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  maxCell = 80,
): string {
  const clean = (s: string) => {
    const one = terminalSafe(s)
      .replace(/\s*\n\s*|\t/g, ' ')
      .trim();
    return one.length > maxCell ? `${one.slice(0, maxCell - 1)}…` : one;
  };
  const cells = [headers.map(clean), ...rows.map((r) => r.map(clean))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(cells[0] ?? []), rule, ...cells.slice(1).map(line)].join('\n');
}

/** One line, at most `max` characters. */
export function cut(value: string, max: number): string {
  const line = value.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
