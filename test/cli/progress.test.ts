// Progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressView } from '../../src/cli/commands/call/progress.js';

function stream(isTTY: boolean): { written: string[]; stream: NodeJS.WriteStream } {
  const written: string[] = [];
  const fake = { isTTY, columns: 60, write: (s: string) => written.push(s) > 0 };
  return { written, stream: fake as unknown as NodeJS.WriteStream };
}

test('not a terminal: one plain line per notification', () => {
  const { written, stream: s } = stream(false);
  const view = progressView(s);
  view.update({ progressToken: 1, progress: 1, total: 4, message: 'one' });
  view.update({ progressToken: 1, progress: 2 });
  view.done();
  assert.deepEqual(written, ['progress 1/4 one\n', 'progress 2\n']);
});

test('a terminal: a bar redrawn on one line, ended with a newline', () => {
  const { written, stream: s } = stream(true);
  const view = progressView(s);
  view.update({ progressToken: 1, progress: 1, total: 4, message: 'one' });
  view.update({ progressToken: 1, progress: 4, total: 4 });
  view.done();
  assert.equal(written.length, 3);
  assert.ok(written[0]?.startsWith('\r\x1b[2K[######                  ] 25% one'), written[0]);
  assert.ok(written[1]?.startsWith('\r\x1b[2K[########################] 100%'), written[1]);
  assert.equal(written[2], '\n');
});

test("a server's message carries no control sequence, on a terminal or not", () => {
  for (const isTTY of [false, true]) {
    const { written, stream: s } = stream(isTTY);
    const view = progressView(s);
    view.update({ progressToken: 1, progress: 1, message: 'step\u001b]0;pwned\u0007\u009b2J\rdone' });
    const shown = written.join('').replace('\r\u001b[2K', '');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    assert.doesNotMatch(shown, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(shown));
    assert.match(shown, /step\]0;pwned2Jdone/);
  }
});
