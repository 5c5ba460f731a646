// The action of `mcpkit chat`: loads the host config, starts its servers (showing each one's state), and runs the
// conversation line by line; slash commands for the registry, the log and the servers' prompts.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Chat, messageText, type ToolExposure } from '../../../host/chat/chat.js';
import { Host } from '../../../host/host.js';
import { AnthropicModel } from '../../../host/model/anthropic.js';
import { checkModelServer } from '../../../host/model/http.js';
import { OpenAIChatModel } from '../../../host/model/openai.js';
import { OpenAIResponsesModel } from '../../../host/model/openai-responses.js';
import { createModel } from '../../../host/model/spec.js';
import { errorMessage } from '../../../jsonrpc/errors.js';
import { CliError, ExitCode, exitCodeOf } from '../../shared/exit.js';
import { configSources, loadHostConfig } from '../../shared/host-config.js';
import { startOtel } from '../../shared/otel.js';
import { cut, note, out, parseFormat, printError, table } from '../../shared/output.js';
import { toolListCache, toolPinStore } from '../../shared/pins.js';
import { Lines } from '../../shared/terminal.js';
import { askApproval, askElicitation, renderer, reviewSampling } from './ask.js';
import type { ChatFlags } from './flags.js';
import { MODEL_SERVER_HINT } from './hint.js';

const HELP = `/tools  /prompts  /resources  /servers  /log [n]  /attach <uri>  /clear  /help  /quit
/<prompt> arg=value …   use a server's prompt (its qualified name, or its own when only one server has it)`;

/** Holds the conversation until stdin ends or `/quit`; resolves with the exit code. */
export async function runChat(flags: ChatFlags): Promise<number> {
  const format = parseFormat(flags.format ?? 'text');
  const spec = flags.model ?? process.env.MCPKIT_MODEL;
  if (spec === undefined || spec.trim() === '')
    throw new CliError(
      ExitCode.usage,
      'chat needs a model: --model openai:gpt-4o (or openai-responses:…, anthropic:…, ollama:…), or MCPKIT_MODEL',
    );
  const model = createModel(spec);
  // Before any server is started: a model server that is not running is said at once, with how to run one.
  if (
    model instanceof OpenAIChatModel ||
    model instanceof OpenAIResponsesModel ||
    model instanceof AnthropicModel
  ) {
    try {
      await checkModelServer(model.baseUrl, model.provider);
    } catch (e) {
      throw new CliError(
        ExitCode.unreachable,
        `${errorMessage(e)}
${MODEL_SERVER_HINT}`,
        {},
        e,
      );
    }
  }
  const maxTokens = Number(flags.maxTokens ?? '4096');
  if (!Number.isInteger(maxTokens) || maxTokens < 1)
    throw new CliError(ExitCode.usage, `--max-tokens must be a positive integer, got ${flags.maxTokens}`);
  if (configSources(flags.config).length === 0)
    throw new CliError(
      ExitCode.usage,
      'no host config file found: give --config FILE (Claude Desktop, Claude Code, VS Code, Cursor or mcpkit format)',
    );
  const exposure = toolExposure(flags.toolSearch);

  const lines = new Lines(process.stdin, process.stderr);
  const interactive = lines.interactive;
  const cwd = process.cwd();
  const config = await loadHostConfig(flags, {
    lines,
    ...(interactive ? { input: async (input) => lines.ask(`${input.description ?? input.id}: `) } : {}),
  });
  const otel = await startOtel(flags.otel, 'mcpkit-chat');
  const host = new Host(config, {
    model,
    ...(otel ? { instrument: otel.host() } : {}),
    ...(flags.sandbox ? { sandbox: true } : {}),
    roots: [{ uri: pathToFileURL(cwd).href, name: basename(cwd) }],
    toolPins: toolPinStore(),
    toolListCache: toolListCache(),
    ...(flags.lazy === true ? { lazy: true } : {}),
    // Not a terminal: nobody to ask. Approvals follow the policy only (ask = deny); sampling and forms are declined.
    ...(interactive
      ? {
          approve: (request) => askApproval(lines, request),
          reviewSampling: reviewSampling(lines),
          elicitation: (params, context) => askElicitation(lines, context.server, params),
        }
      : {
          reviewSampling: () => ({ approve: false, reason: 'mcpkit chat is not attached to a terminal' }),
          elicitation: () => ({ action: 'decline' }),
        }),
  });
  let started = false;
  host.on('state', (s) => {
    if (started && s.state !== 'starting') note(`(${s.name}: ${s.state}${s.reason ? ` — ${s.reason}` : ''})`);
  });
  // A tool that changed since it was approved: said when found (the diff is shown when it is asked about).
  host.on('activity', (e) => {
    if (e.kind === 'tool-change' && e.outcome !== 'approved')
      note(`! ${e.name} on ${e.server}: ${e.summary}`);
  });
  // What a sandbox does before its server is up (an npx package installed outside it) is worth seeing at once.
  const preparing = host.on('activity', (e) => {
    if (e.kind === 'sandbox' && e.name === 'prepare') note(`… ${e.server}: ${e.summary ?? ''}`);
  });
  try {
    for (const s of await host.start()) {
      const tools = host.registry.tools().filter((t) => t.server === s.name).length;
      const sandbox = s.sandbox ? `\n  ${s.sandbox.summary}` : '';
      if (s.state === 'ready') note(`✓ ${s.name}: ready, ${tools} tools${sandbox}`);
      else if (s.state === 'idle')
        note(
          `○ ${s.name}: idle (started when a search or a call needs it)${tools > 0 ? `, ${tools} tools known` : ''}${sandbox}`,
        );
      else
        note(
          `✗ ${s.name}: ${s.state}${s.reason ? ` — ${s.reason}` : ''}${s.stderrTail ? `\n  ${cut(s.stderrTail, 300)}` : ''}${sandbox}`,
        );
    }
    preparing();
    started = true;
    note(
      `model: ${model.provider}:${model.model}${interactive ? ' — /help for commands, /quit to end' : ''}`,
    );
    const chat = host.chat({
      maxTokens,
      toolExposure: exposure,
      onevent: renderer(),
      ...(flags.system === undefined ? {} : { system: flags.system }),
    });
    for (;;) {
      const line = await lines.next('> ');
      if (line === undefined) return 0;
      const input = line.trim();
      if (input === '') continue;
      try {
        if (input === '/quit' || input === '/exit') return 0;
        if (input.startsWith('/') && !input.startsWith('//')) await command(input, host, chat);
        else await chat.send(input.startsWith('//') ? input.slice(1) : input);
      } catch (e) {
        // At a terminal the conversation goes on; a script stops at the first failure, with its exit code.
        const code = e instanceof CliError ? e.exitCode : exitCodeOf(e, undefined);
        printError(e, code, format);
        if (!interactive) return code;
      }
    }
  } finally {
    lines.close();
    await host.close();
    await otel?.shutdown();
  }
}

/** The chat's tool exposure from `--tool-search [mode]` (absent: every tool). */
function toolExposure(flag: string | boolean | undefined): ToolExposure {
  if (flag === undefined || flag === false) return 'all';
  if (flag === true) return 'search';
  if (flag === 'search' || flag === 'auto' || flag === 'provider') return flag;
  throw new CliError(ExitCode.usage, `--tool-search takes search, auto or provider, got ${flag}`);
}

async function command(input: string, host: Host, chat: Chat): Promise<void> {
  const [word = '', ...rest] = input.slice(1).split(/\s+/);
  switch (word) {
    case 'help':
      note(HELP);
      return;
    case 'tools':
      note(
        table(
          ['tool', 'approval', 'description'],
          host.registry
            .tools()
            .map((t) => [
              t.name,
              host.toolChange(t.name) === undefined ? t.mode : `${t.mode} (changed)`,
              t.tool.description ?? '',
            ]),
        ),
      );
      return;
    case 'prompts':
      note(
        table(
          ['prompt', 'arguments', 'description'],
          host.registry
            .prompts()
            .map((p) => [
              p.name,
              (p.definition.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' '),
              p.definition.description ?? '',
            ]),
        ),
      );
      return;
    case 'resources':
      note(
        table(
          ['uri', 'server', 'name'],
          host.registry.resources().map((r) => [r.resource.uri, r.server, r.resource.name]),
        ),
      );
      return;
    case 'servers':
      for (const s of host.servers)
        note(
          `${s.name}: ${s.state}${s.reason ? ` — ${s.reason}` : ''}${s.sandbox ? ` (${s.sandbox.summary})` : ''}`,
        );
      return;
    case 'log': {
      const n = Number(rest[0] ?? '20');
      for (const e of host.log.entries().slice(-(Number.isInteger(n) && n > 0 ? n : 20))) {
        const who = [e.server, e.name].filter(Boolean).join(' ');
        const took = e.durationMs === undefined ? '' : ` ${Math.round(e.durationMs)} ms`;
        note(
          `${e.time.slice(11, 19)} ${e.kind} ${who} ${e.outcome}${e.approval ? ` (${e.approval})` : ''}${took}${e.summary ? `: ${cut(e.summary, 160)}` : ''}`,
        );
      }
      return;
    }
    case 'attach':
      if (rest[0] === undefined) throw new CliError(ExitCode.usage, 'usage: /attach <uri>');
      await chat.attach(rest[0]);
      return;
    case 'clear':
      chat.clear();
      note('(the conversation is cleared)');
      return;
    default: {
      if (!chat.findPrompt(word)) {
        throw new CliError(
          ExitCode.usage,
          `unknown command or prompt /${word} (/help lists the commands, /prompts the prompts)`,
        );
      }
      const turn = await chat.command(input);
      // A prompt whose last message is the model's own is shown, since no answer streamed.
      if (turn.rounds === 0) for (const m of turn.messages) out(`[${m.role}] ${messageText(m)}`);
    }
  }
}
