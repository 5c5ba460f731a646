// The fenced code blocks of a Markdown page, as the docs check reads them: the language and attributes of the info
// string (```ts run file=client.ts), the text, where it starts, and the hidden preamble an HTML comment right before
// it gives (<!-- preamble … -->: code the block needs to compile alone, e.g. a `declare const server: McpServer`).

/** One fenced code block of a page. */
export interface CodeBlock {
  /** The first word of the info string (`ts`, `sh`, `text`, …); empty when the block names none. */
  lang: string;
  /** `run`: compile and run it, its output compared with the next block (a `text` block). */
  run: boolean;
  /** `file=NAME`: the file name it is written to (other blocks of the page may spawn or import it). */
  file: string | undefined;
  /** The block's text, its fence's indentation removed. */
  text: string;
  /** The line (1-based) of the block's first line of text in the page. */
  line: number;
  /** Code from a `<!-- preamble … -->` comment right before the block (only blank lines between), or ''. */
  preamble: string;
}

const FENCE = /^( *)(`{3,}|~{3,})(.*)$/;
const PREAMBLE = /^<!--\s*preamble\b([\s\S]*?)-->\s*$/;

/** Every fenced code block of `page`, in order; an unterminated fence is an error naming its line. */
export function codeBlocks(page: string): CodeBlock[] {
  const lines = page.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const words = info.trim().split(/\s+/).filter(Boolean);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] as string;
      const close = FENCE.exec(line);
      if (close?.[2]?.startsWith(fence) && (close[3] ?? '').trim() === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    if (j === lines.length) throw new Error(`line ${i + 1}: a code fence that never closes`);
    const file = words.find((w) => w.startsWith('file='))?.slice('file='.length);
    blocks.push({
      lang: words[0] ?? '',
      run: words.includes('run'),
      file,
      text: body.join('\n'),
      line: i + 2,
      preamble: preambleBefore(lines, i),
    });
    i = j;
  }
  return blocks;
}

/** The code of a `<!-- preamble … -->` comment ending right above line `at` (blank lines between allowed). */
function preambleBefore(lines: readonly string[], at: number): string {
  let end = at - 1;
  while (end >= 0 && (lines[end] as string).trim() === '') end--;
  if (end < 0 || !(lines[end] as string).trim().endsWith('-->')) return '';
  let start = end;
  while (start >= 0 && !(lines[start] as string).trimStart().startsWith('<!--')) start--;
  if (start < 0) return '';
  const comment = PREAMBLE.exec(
    lines
      .slice(start, end + 1)
      .join('\n')
      .trim(),
  );
  return comment ? (comment[1] ?? '').replace(/^\n/, '').replace(/\s+$/, '') : '';
}

/** Whether a block is TypeScript (every such block goes through the check). */
export function isTypeScript(block: CodeBlock): boolean {
  return ['ts', 'typescript', 'mts', 'tsx'].includes(block.lang);
}
