// Markdown tables laid out the way biome's formatter writes them (every cell padded to its column's width, the
// separator row as wide), so a results file committed as a bench wrote it passes `npx biome ci .` unchanged.

/** Width of a cell as the formatter counts it: one per code point. */
const width = (cell: string) => [...cell].length;

/** The lines of a table with `header` and `rows` (left-aligned columns), padded as biome pads them. */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(3, width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    `| ${widths.map((w, i) => (cells[i] ?? '') + ' '.repeat(w - width(cells[i] ?? ''))).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}
