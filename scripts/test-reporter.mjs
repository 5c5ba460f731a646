// The default reporter of `npm test` (scripts/run-tests.mjs): a dot per test file that passed, every failure in full
// as it happens (its path of test names, the error, and for a file that failed as a whole the tail of its stderr),
// and the counts at the end. Expected failures (`todo`) and skips are counted, not shown. The full TAP stream is
// there on request: `npm test -- --tap` or MCPKIT_TEST_REPORTER=tap.
import { relative } from 'node:path';
import { inspect } from 'node:util';

/** How many of a file's last stderr lines are kept to explain a file that failed as a whole. */
const STDERR_TAIL = 40;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* conciseReporter(source) {
  /** @type {Map<string, string[]>} the names of the tests running in each file, by nesting level */
  const running = new Map();
  /** @type {Map<string, string[]>} the last lines each file wrote to stderr */
  const stderr = new Map();
  /** @type {Set<string>} files with a failure reported: a file-level failure that follows adds nothing */
  const failed = new Set();
  const summary = [];
  let failures = 0;
  let column = 0;
  const newline = () => {
    const out = column > 0 ? '\n' : '';
    column = 0;
    return out;
  };
  for await (const { type, data } of source) {
    const file = data?.file;
    switch (type) {
      case 'test:start': {
        const stack = running.get(file) ?? [];
        stack.length = data.nesting;
        stack.push(data.name);
        running.set(file, stack);
        break;
      }
      case 'test:stderr': {
        const lines = stderr.get(file) ?? [];
        lines.push(...String(data.message).replace(/\n$/, '').split('\n'));
        if (lines.length > STDERR_TAIL) lines.splice(0, lines.length - STDERR_TAIL);
        stderr.set(file, lines);
        break;
      }
      case 'test:pass':
        if (data.nesting === 0 && data.name === file) {
          stderr.delete(file);
          yield '.';
          column++;
          if (column >= 80) yield newline();
        }
        break;
      case 'test:fail': {
        if (data.todo !== undefined && data.todo !== false) break;
        const error = data.details?.error;
        // A parent whose subtests failed: the subtests are reported themselves.
        if (error?.failureType === 'subtestsFailed') break;
        const wholeFile = data.nesting === 0 && data.name === file;
        if (wholeFile && failed.has(file)) break;
        failed.add(file);
        failures++;
        const stack = (running.get(file) ?? []).slice(0, data.nesting);
        const where = [
          file ? relative(process.cwd(), file) : '(no file)',
          ...stack,
          ...(wholeFile ? [] : [data.name]),
        ];
        let text = `${newline()}\n✗ ${where.join(' › ')}\n`;
        text += indent(withoutInternals(inspect(error?.cause ?? error, { depth: 4 })));
        if (wholeFile) {
          const tail = stderr.get(file) ?? [];
          if (tail.length > 0) text += `\n  stderr (last ${tail.length} lines):\n${indent(tail.join('\n'))}`;
        }
        yield `${text}\n`;
        break;
      }
      case 'test:diagnostic':
        if (data.nesting === 0 && file === undefined) summary.push(data.message);
        break;
    }
  }
  yield `${newline()}\n${failures === 0 ? 'all passed' : `${failures} failed`}: ${summary.join(', ')}\n`;
}

/** Drops the test runner's own stack frames. */
function withoutInternals(text) {
  return text
    .split('\n')
    .filter((line) => !/^\s+at .*(node:internal|node:async_hooks)/.test(line))
    .join('\n');
}

function indent(text) {
  return text.replace(/^/gm, '    ');
}
