// A pseudo-terminal for the command's interactive paths (`mcpkit chat`, the project-trust question): a tmux server of
// the test's own (its own socket, so nothing else's sessions are touched), one session whose screen a test reads and
// types into, bounded waits, stopped by the test.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { MCPKIT, tempHome } from './helpers.js';

/** Quotes `words` for the shell, one command line. */
function shellLine(words: readonly string[]): string {
  return words.map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ');
}

/**
 * The shell command line of `mcpkit chat --config CONFIG --model openai:gpt-4o` against the stand-in model at
 * `openaiBase`, with `home` as its config folder (its tool pins).
 */
export function chatCommand(config: string, openaiBase: string, home = tempHome()): string {
  return shellLine([
    'env',
    `XDG_CONFIG_HOME=${home}`,
    `OPENAI_BASE_URL=${openaiBase}`,
    'OPENAI_API_KEY=',
    process.execPath,
    MCPKIT,
    'chat',
    '--config',
    config,
    '--model',
    'openai:gpt-4o',
  ]);
}

/** One tmux server (socket `mcpkit-<name>-<pid>-<n>`) with one session called `name`. */
export class Tmux {
  static #made = 0;
  readonly socket: string;
  readonly session: string;

  constructor(name = 'chat') {
    this.session = name;
    this.socket = `mcpkit-${name}-${process.pid}-${Tmux.#made++}`;
  }

  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /**
   * Starts `command` (a shell command line, or words each quoted for the shell) in a 200x60 terminal in `cwd`;
   * `exited <code>` is shown after it and the pane kept 30 s.
   */
  start(command: string | readonly string[], cwd?: string): void {
    const line = typeof command === 'string' ? command : shellLine(command);
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
      `${line}; echo "exited $?"; sleep 30`,
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
