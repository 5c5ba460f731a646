// `mcpkit chat --config FILE --model provider:name`: a conversation between a model and the servers of a host config.
// Servers' status at start, each tool call shown as it happens, approvals asked inline (allow once / for the session
// / deny), servers' sampling and elicitation answered inline, /tools, /prompts, /resources, /attach, /log and prompts
// as slash commands. With stdin not a terminal it is scriptable: one message a line, answers on stdout, approvals
// follow the config's policy only (an `ask` is denied), sampling and elicitation declined.
import type { Command } from 'commander';
import { execute } from '../../shared/execute.js';
import { withFormat, withOtel, withSandbox, withTrustProject } from '../../shared/options.js';
import type { ChatFlags } from './flags.js';
import { MODEL_SERVER_HINT } from './hint.js';

/** Adds `mcpkit chat` to `program`. */
export function register(program: Command): void {
  withFormat(
    withOtel(
      withSandbox(
        withTrustProject(
          program
            .command('chat')
            .description('Chat with a model that uses the servers of a host config (approvals asked inline)')
            .option('--config <file>', 'host config file (default: the known locations)'),
        ),
      ),
    )
      .option(
        '--model <provider:name>',
        'openai:NAME, openai-responses:NAME (the Responses API), anthropic:NAME or ollama:NAME (keys and base URLs from OPENAI_*, ANTHROPIC_*, OLLAMA_HOST; default $MCPKIT_MODEL)',
      )
      .option('--system <text>', 'the system prompt')
      .option('--max-tokens <n>', 'tokens per answer', '4096')
      .option(
        '--tool-search [mode]',
        "show the model search_tools and call_tool instead of every tool: search (the default), auto (once the tools pass 10,000 tokens) or provider (the API's own tool search: anthropic and openai-responses)",
      )
      .option('--lazy', 'start each server only when a tool search or a call needs it')
      .addHelpText(
        'after',
        `
In the chat: /tools, /prompts, /resources, /servers, /log [n], /attach <uri>, /clear, /help, /quit,
and /<prompt> arg=value … to use a server's prompt. With stdin not a terminal, approvals follow the
config's policy only (ask = deny) and servers' sampling and elicitation requests are declined.

${MODEL_SERVER_HINT}
The model server is checked before any MCP server is started.`,
      ),
  ).action((flags: ChatFlags) =>
    execute(flags, async () => {
      const { runChat } = await import('./run.js');
      return runChat(flags);
    }),
  );
}
