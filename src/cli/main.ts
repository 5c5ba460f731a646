#!/usr/bin/env node
// The `mcpkit` command. Only commander and the commands' definitions load at start-up (`mcpkit --help` stays
// within a few milliseconds of Node's own start); each command imports what it needs when it runs.
// Everything after the first `--` is a stdio server's command, never parsed as this command's arguments.
import { Command, CommanderError } from 'commander';
import { register as auth } from './commands/auth/command.js';
import { register as bridge } from './commands/bridge/command.js';
import { register as call } from './commands/call/command.js';
import { register as cardCommand } from './commands/card/command.js';
import { register as chat } from './commands/chat/command.js';
import { register as complete } from './commands/complete/command.js';
import { register as config } from './commands/config/command.js';
import { register as discover } from './commands/discover/command.js';
import { register as gateway } from './commands/gateway/command.js';
import { register as inspect } from './commands/inspect/command.js';
import { register as install } from './commands/install/command.js';
import { register as lists } from './commands/list/command.js';
import { register as ping } from './commands/ping/command.js';
import { register as prompt } from './commands/prompt/command.js';
import { register as read } from './commands/read/command.js';
import { register as serve } from './commands/serve/command.js';
import { register as skillsCommand } from './commands/skills/command.js';
import { exitWhenFlushed, serverCommand } from './shared/execute.js';

/** A command's definition: adds itself (name, arguments, flags, lazy action) to the program. */
export type Register = (program: Command) => void;

/** Every command, in the order `mcpkit --help` lists them (`lists`: tools, resources, templates, prompts). */
const COMMANDS: readonly Register[] = [
  lists,
  call,
  read,
  skillsCommand,
  prompt,
  complete,
  ping,
  discover,
  cardCommand,
  inspect,
  auth,
  serve,
  bridge,
  install,
  config,
  chat,
  gateway,
];

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
serverCommand.words = dashes < 0 ? undefined : argv.slice(dashes + 1);
const own = dashes < 0 ? argv : argv.slice(0, dashes);
const json =
  own.includes('json') &&
  own.some((a, i) => a === '--format=json' || (a === '--format' && own[i + 1] === 'json'));

const program = new Command('mcpkit')
  .description('Talk to any MCP server: list, call, read, prompt, discover, inspect, authorize.')
  .description(
    'Talk to any MCP server: list, call, read, prompt, discover, authorize; serve a module, bridge transports, install into hosts.',
  )
  .usage('<command> [target] [options] [-- command args…]')
  .version('0.1.0', '-V, --version')
  .showSuggestionAfterError(true)
  .exitOverride()
  .configureOutput({
    // Usage errors as one JSON object on stderr under --format json.
    outputError: (text, write) =>
      write(
        json ? `${JSON.stringify({ error: { kind: 'usage', exitCode: 1, message: text.trim() } })}\n` : text,
      ),
  })
  .addHelpText(
    'after',
    `
Targets:
  -- <command> [args…]   a stdio server (e.g. mcpkit tools -- node server.js)
  <url>                  Streamable HTTP, falling back to the legacy HTTP+SSE transport
  <name>                 a server in a host config file (--config FILE, or Claude Desktop, Claude Code,
                         VS Code, Cursor and mcpkit.json in their known places)

Exit codes: 0 ok, 1 usage, 2 server failed to start, 3 authorization required, 4 unreachable,
            5 the tool returned isError, 6 the server answered with an error, 7 timed out
            (0 and 1 as the official Inspector CLI, which exits only 0 or 1; 2-7 are mcpkit's
            refinements of its 1)`,
  );
for (const add of COMMANDS) add(program);

try {
  await program.parseAsync(own, { from: 'user' });
} catch (e) {
  if (!(e instanceof CommanderError)) throw e;
  // Help and version asked for are a success; any other parse error is a usage error (commander printed it).
  const ok =
    e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
  await exitWhenFlushed(ok ? 0 : 1);
}
