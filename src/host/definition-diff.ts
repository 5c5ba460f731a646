import { canonicalJson, type PinnedDefinition } from './tool-digest.js';

/** A tool whose definition is no longer the one pinned: what the person approved, what the server offers now. */
export interface ToolChange {
  /** The pinned definition (as first listed with `allow`, or as last approved). */
  before: PinnedDefinition;
  /** The definition the server lists now. */
  after: PinnedDefinition;
  /** The fields that differ (`description`, `inputSchema`, …). */
  fields: string[];
  /** A line diff of the two, pretty-printed with sorted keys: `- ` pinned, `+ ` now, `  ` context. */
  diff: string;
}

const FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
/** Longer lines are wrapped before comparing (a long description shows as several lines). */
const WRAP = 100;
/** Lines of context kept around each change. */
const CONTEXT = 2;
/** The most lines a diff shows. */
const MAX_LINES = 120;
/** The most cells of the comparison table (lines before × lines after, once common ends are set aside). */
const MAX_CELLS = 1_000_000;

/** What changed between a pinned definition and the current one. */
export function toolChange(before: PinnedDefinition, after: PinnedDefinition): ToolChange {
  const fields = FIELDS.filter((f) => canonicalJson(before[f]) !== canonicalJson(after[f]));
  return { before, after, fields, diff: lineDiff(pretty(before), pretty(after)) };
}

function pretty(definition: PinnedDefinition): string[] {
  const lines: string[] = [];
  for (const line of visible(canonicalJson(definition, 2)).split('\n')) {
    if (line.length <= WRAP) lines.push(line);
    else
      for (let i = 0; i < line.length; i += WRAP)
        lines.push(`${i === 0 ? '' : '    ↪ '}${line.slice(i, i + WRAP)}`);
  }
  return lines;
}

/**
 * Characters a terminal or a page would not show (zero-width and bidirectional controls, Unicode tags, C1 controls)
 * written as `\u{…}`: a definition cannot hide text from the person reading the diff.
 */
export function visible(text: string): string {
  return text.replace(
    /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu,
    (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`,
  );
}

/**
 * A line diff of `a` and `b` (longest common subsequence), as `- `/`+ `/`  ` lines with a little context, gaps shown
 * as `  …`; bounded in time (past MAX_CELLS the middle is shown as removed then added) and in length.
 */
export function lineDiff(a: readonly string[], b: readonly string[]): string {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = a.slice(0, start).map((l): Op => [' ', l]);
  ops.push(...middle(a.slice(start, endA), b.slice(start, endB)));
  for (let i = endA; i < a.length; i++) ops.push([' ', a[i] as string]);
  slideDown(ops);
  return render(ops);
}

type Op = [' ' | '-' | '+', string];

/**
 * Moves each run of added (or removed) lines down while the line after it repeats its first line: the same diff, read
 * as a whole block (`+ "to": {…}` after `"text": {…}` rather than inside it).
 */
function slideDown(ops: Op[]): void {
  for (let k = 0; k < ops.length; k++) {
    const op = (ops[k] as Op)[0];
    if (op === ' ') continue;
    let start = k;
    let end = k;
    while (end + 1 < ops.length && (ops[end + 1] as Op)[0] === op) end++;
    for (;;) {
      const next = ops[end + 1];
      if (next?.[0] !== ' ' || next[1] !== (ops[start] as Op)[1]) break;
      ops[start] = [' ', next[1]];
      ops[end + 1] = [op, next[1]];
      start++;
      end++;
    }
    k = end;
  }
}

function middle(a: readonly string[], b: readonly string[]): [' ' | '-' | '+', string][] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS)
    return [...a.map((l) => ['-', l] as ['-', string]), ...b.map((l) => ['+', l] as ['+', string])];
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..], one row of m + 1 per line of a.
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * (m + 1) + j + 1] as number) + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j] as number, lengths[i * (m + 1) + j + 1] as number);
  const ops: [' ' | '-' | '+', string][] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push([' ', a[i++] as string]);
      j++;
    } else if (
      i < n &&
      (j === m || (lengths[(i + 1) * (m + 1) + j] as number) >= (lengths[i * (m + 1) + j + 1] as number))
    ) {
      // Removals first when both are as long: a changed line reads as `-` old then `+` new.
      ops.push(['-', a[i++] as string]);
    } else ops.push(['+', b[j++] as string]);
  }
  return ops;
}

function render(ops: readonly [' ' | '-' | '+', string][]): string {
  const keep = new Array<boolean>(ops.length).fill(false);
  ops.forEach(([op], k) => {
    if (op === ' ') return;
    for (let c = Math.max(0, k - CONTEXT); c <= Math.min(ops.length - 1, k + CONTEXT); c++) keep[c] = true;
  });
  const out: string[] = [];
  let skipped = false;
  ops.forEach(([op, line], k) => {
    if (!keep[k]) {
      skipped = true;
      return;
    }
    if (skipped) out.push('  …');
    skipped = false;
    out.push(`${op} ${line}`);
  });
  if (skipped) out.push('  …');
  if (out.length <= MAX_LINES) return out.join('\n');
  return [...out.slice(0, MAX_LINES), `… (${out.length - MAX_LINES} more lines)`].join('\n');
}
