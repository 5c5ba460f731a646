// Progress notifications on stderr: a bar redrawn in place on a terminal, plain lines otherwise.
import type { ProgressParams } from '../../../spec/types.js';
import { terminalSafe } from '../../shared/output.js';

/** Shows progress; `done()` ends the bar's line. */
export interface ProgressView {
  update(progress: ProgressParams): void;
  done(): void;
}

const WIDTH = 24;

/** A progress view on `stream` (stderr by default): a bar when it is a terminal. */
export function progressView(stream: NodeJS.WriteStream = process.stderr): ProgressView {
  let drawn = false;
  if (!stream.isTTY) {
    return {
      update: (p) =>
        stream.write(
          `progress ${p.progress}${p.total === undefined ? '' : `/${p.total}`}${p.message ? ` ${terminalSafe(p.message).replace(/\s+/g, ' ')}` : ''}\n`,
        ),
      done: () => undefined,
    };
  }
  return {
    update(p) {
      const fraction =
        p.total !== undefined && p.total > 0 ? Math.min(1, Math.max(0, p.progress / p.total)) : undefined;
      const bar =
        fraction === undefined
          ? `[${'·'.repeat(WIDTH)}] ${p.progress}`
          : `[${'#'.repeat(Math.round(fraction * WIDTH)).padEnd(WIDTH, ' ')}] ${Math.round(fraction * 100)}%`;
      const line = `${bar}${p.message ? ` ${terminalSafe(p.message).replace(/[\n\t]/g, ' ')}` : ''}`;
      const columns = stream.columns ?? 80;
      stream.write(`\r\x1b[2K${line.slice(0, columns - 1)}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
