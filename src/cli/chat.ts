// `mcpkit chat --config FILE --model provider:name`: a conversation between a model and the servers of a host config.
// Servers' status at start, each tool call shown as it happens, approvals asked inline (allow once / for the session
// / deny), servers' sampling and elicitation answered inline, /tools, /prompts, /resources, /attach, /log and prompts
// as slash commands. With stdin not a terminal it is scriptable: one message a line, answers on stdout, approvals
// follow the config's policy only (an `ask` is denied), sampling and elicitation declined.
import type { Command } from 'commander';
import type { HostConfigFlags } from './host-config.js';
import { withFormat, withTrustProject } from './options.js';
import { execute } from './run.js';

/** How to run a model server on this machine: in the help, and said when none answers. */
export const MODEL_SERVER_HINT = `To try the chat without a cloud key, run a model server on this machine:
  Ollama:  ollama serve, then ollama pull llama3.2, then --model ollama:llama3.2 (OLLAMA_HOST when not localhost:11434)
  any OpenAI-compatible server (llama.cpp's llama-server, vLLM, LM Studio):
           --model openai:NAME with OPENAI_BASE_URL=http://127.0.0.1:PORT/v1`;

/** The flags of `mcpkit chat`. */
export interface ChatFlags extends HostConfigFlags {
  model?: string;
  system?: string;
  maxTokens?: string;
  format?: string;
}

export function register(program: Command): void {
  withFormat(
    withTrustProject(
      program
        .command('chat')
        .description('Chat with a model that uses the servers of a host config (approvals asked inline)')
        .option('--config <file>', 'host config file (default: the known locations)'),
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
config's policy only (ask = deny) and servers' sampling and elicitation requests are declined.

${MODEL_SERVER_HINT}
The model server is checked before any MCP server is started.`,
      ),
  ).action((flags: ChatFlags) =>
    execute(flags, async () => {
      const { runChat } = await import('./chat-run.js');
      return runChat(flags);
    }),
  );
}
