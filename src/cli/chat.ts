// `mcpkit chat --config FILE --model provider:name`: a conversation between a model and the servers of a host config.
// Servers' status at start, each tool call shown as it happens, approvals asked inline (allow once / for the session
// / deny), servers' sampling and elicitation answered inline, /tools, /prompts, /resources, /attach, /log and prompts
// as slash commands. With stdin not a terminal it is scriptable: one message a line, answers on stdout, approvals
// follow the config's policy only (an `ask` is denied), sampling and elicitation declined.
import type { Command } from 'commander';
import type { HostConfigFlags } from './host-config.js';
import { withFormat, withSandbox, withTrustProject } from './options.js';
import { execute } from './run.js';

/** The flags of `mcpkit chat`. */
export interface ChatFlags extends HostConfigFlags {
  model?: string;
  system?: string;
  maxTokens?: string;
  format?: string;
}

export function register(program: Command): void {
  withFormat(
    withSandbox(
      withTrustProject(
        program
          .command('chat')
          .description('Chat with a model that uses the servers of a host config (approvals asked inline)')
          .option('--config <file>', 'host config file (default: the known locations)'),
      ),
    )
      .option(
        '--model <provider:name>',
        'openai:NAME, anthropic:NAME or ollama:NAME (keys and base URLs from OPENAI_*, ANTHROPIC_*, OLLAMA_HOST; default $MCPKIT_MODEL)',
      )
      .option('--system <text>', 'the system prompt')
      .option('--max-tokens <n>', 'tokens per answer', '4096')
      .addHelpText(
        'after',
        `
In the chat: /tools, /prompts, /resources, /servers, /log [n], /attach <uri>, /clear, /help, /quit,
and /<prompt> arg=value … to use a server's prompt. With stdin not a terminal, approvals follow the
config's policy only (ask = deny) and servers' sampling and elicitation requests are declined.`,
      ),
  ).action((flags: ChatFlags) =>
    execute(flags, async () => {
      const { runChat } = await import('./chat-run.js');
      return runChat(flags);
    }),
  );
}
