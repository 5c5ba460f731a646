// A tmux server of a test's own (its own socket): a pseudo-terminal for the interactive commands (`mcpkit chat`),
// driven by keystrokes and read back from the screen, bounded waits, and stopped by the test.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { MCPKIT, tempHome } from './helpers.js';

/**
 * The shell command line of `mcpkit chat --config CONFIG --model openai:gpt-4o` against the stand-in model at
 * `openaiBase`, with `home` as its config folder (its tool pins).
 */
export function chatCommand(config: string, openaiBase: string, home = tempHome()): string {
  return [
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
  ]
    .map((w) => `'${w}'`)
    .join(' ');
}

/** A tmux server of this test's own (its own socket), so nothing else's sessions are touched. */
export class Tmux {
  static #made = 0;
  readonly socket = `mcpkit-chat-${process.pid}-${Tmux.#made++}`;

  /** Runs `command` (a shell command line) in a new 200×60 session named `chat`, then keeps the pane 30 s. */
  start(command: string): void {
    this.run(
      'new-session',
      '-d',
      '-s',
      'chat',
      '-x',
      '200',
      '-y',
      '60',
      `${command}; echo "exited $?"; sleep 30`,
    );
  }
  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
  screen(): string {
    return this.run('capture-pane', '-p', '-J', '-S', '-200', '-t', 'chat');
  }
  type(text: string): void {
    this.run('send-keys', '-t', 'chat', '-l', text);
    this.run('send-keys', '-t', 'chat', 'Enter');
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
      // Already gone: the chat ended and the session with it.
    }
  }
}
