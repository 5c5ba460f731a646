// A pseudo-terminal for the command's interactive paths: a tmux server of the test's own (its own socket, so nothing
// else's sessions are touched), one session whose screen a test reads and types into.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

/** One tmux server (socket `mcpkit-<name>-<pid>`) with one session called `name`. */
export class Tmux {
  readonly socket: string;
  readonly session: string;

  constructor(name = 'chat') {
    this.session = name;
    this.socket = `mcpkit-${name}-${process.pid}`;
  }

  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Starts `words` (each quoted for the shell) in a 200x60 terminal in `cwd`; `exited <code>` is shown after it. */
  start(words: readonly string[], cwd?: string): void {
    const command = words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
    this.run(
      'new-session',
      '-d',
      '-s',
      this.session,
      '-x',
      '200',
      '-y',
      '60',
      ...(cwd === undefined ? [] : ['-c', cwd]),
      `${command}; echo "exited $?"; sleep 30`,
    );
  }

  screen(): string {
    return this.run('capture-pane', '-p', '-J', '-S', '-200', '-t', this.session);
  }

  type(text: string): void {
    this.run('send-keys', '-t', this.session, '-l', text);
    this.run('send-keys', '-t', this.session, 'Enter');
  }

  async waitFor(pattern: RegExp, what: string, ms = 30_000): Promise<string> {
    const end = Date.now() + ms;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}; the screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  kill(): void {
    try {
      this.run('kill-server');
    } catch {
      // Already gone: the command ended and the session with it.
    }
  }
}
