// A generic example client: connects to any MCP server (a stdio command it starts, or an HTTP URL),
// shows what it offers, then tries a few things.
// Usage: npm run --silent example:client -- <command> [args…] | <http(s) url>
//   e.g. npm run --silent example:client -- node dist/examples/everything/server.js
//        npm run --silent example:client -- http://127.0.0.1:3000/mcp
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import {
  Client,
  HttpClientTransport,
  type RequestOptions,
  type Tool,
  type Transport,
} from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import {
  describeCapabilities,
  describeContent,
  describeResourceContents,
  errorMessage,
  heading,
  promptRows,
  resourceRows,
  table,
  templateRows,
  toolRows,
  truncate,
} from './format.js';
import { lastUserText, scriptedForm, scriptedModel } from './scripted.js';

const USAGE = `usage: npm run --silent example:client -- <command> [args…] | <http(s) url>
  e.g. npm run --silent example:client -- node dist/examples/everything/server.js
       npm run --silent example:client -- http://127.0.0.1:3000/mcp`;

/** Tools tried when the server has them, with the arguments to send. */
const TOOL_TRIES: Record<string, Record<string, unknown>> = {
  test_simple_text: {},
  echo: { text: 'hello from the example client' },
  add: { a: 2, b: 3 },
  test_tool_with_progress: {},
  test_sampling: { prompt: 'What is the Model Context Protocol?' },
};
/** Prompt arguments for prompts that need some. */
const PROMPT_ARGS: Record<string, Record<string, string>> = {
  greet: { name: 'Ada' },
  test_prompt_with_arguments: { arg1: 'first', arg2: 'second' },
};
const OPTIONS: RequestOptions = { timeout: 20_000 };

/** The tool names last listed, one a line: a list change that leaves them as they were is not shown again. */
let knownTools: string | undefined;

const out = (...lines: string[]) => {
  for (const line of lines) console.log(line);
};

function connectClient(): Client {
  return new Client(
    { name: 'mcpkit-example-client', version: '0.1.0' },
    {
      sampling: (params) => {
        out(
          `    ↳ server asked to sample: "${truncate(lastUserText(params), 60)}" → answering as a scripted model`,
        );
        return scriptedModel(params);
      },
      elicitation: (params) => {
        if (params.mode === 'url') {
          out(`    ↳ server asked to open ${params.url} → declining (no browser here)`);
          return { action: 'decline' };
        }
        const answer = scriptedForm(params.requestedSchema);
        out(
          `    ↳ server asked: "${truncate(params.message, 60)}" → accepting ${JSON.stringify(answer.content)}`,
        );
        return answer;
      },
      roots: [{ uri: pathToFileURL(process.cwd()).href, name: 'working directory' }],
      onlog: (log) =>
        out(`    ↳ log [${log.level}]${log.logger ? ` ${log.logger}:` : ''} ${logText(log.data)}`),
      onToolsChanged: (tools) => {
        // Some servers announce a change that changed nothing, several times: said once per real change.
        const key = tools?.map((t) => t.name).join('\n');
        if (key !== undefined && key === knownTools) return;
        if (key !== undefined) knownTools = key;
        out(`    ↳ the server's tool list changed${tools ? ` (${tools.length} tools)` : ''}`);
      },
      onerror: (e) => console.error(`client: ${e.message}`),
    },
  );
}

function logText(data: unknown): string {
  return truncate(typeof data === 'string' ? data : JSON.stringify(data));
}

/** Forwards the server's stderr to ours, each line prefixed. */
function forwardStderr(transport: StdioClientTransport): void {
  let partial = '';
  transport.onstderr = (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) process.stderr.write(`[server stderr] ${line}\n`);
  };
}

/** Runs one exploratory step; a failure is shown but does not end the run (servers may refuse things). */
async function attempt(label: string, run: () => Promise<string[]>): Promise<void> {
  out(`  ${label}`);
  try {
    out(...(await run()).map((line) => `    ${line}`));
  } catch (e) {
    out(`    ✗ failed: ${errorMessage(e)}`);
  }
}

async function listEverything(client: Client): Promise<{ tools: Tool[] }> {
  const caps = client.serverCapabilities ?? {};
  out(heading('Server'));
  out(
    ...table([
      ['name', `${client.serverInfo?.name ?? '?'} ${client.serverInfo?.version ?? ''}`],
      ['protocol revision', `${client.protocolVersion ?? '?'}${client.era ? ` (${client.era} era)` : ''}`],
      ['capabilities', describeCapabilities(caps)],
      ...(client.instructions
        ? ([['instructions', truncate(client.instructions, 90)]] as [string, string][])
        : []),
    ]),
  );
  const tools = caps.tools ? await client.listTools(OPTIONS) : [];
  knownTools = tools.map((t) => t.name).join('\n');
  if (caps.tools) out(heading(`Tools (${tools.length})`), ...table(toolRows(tools)));
  if (caps.resources) {
    const resources = await client.listResources(OPTIONS);
    out(heading(`Resources (${resources.length})`), ...table(resourceRows(resources)));
    const templates = await client.listResourceTemplates(OPTIONS);
    out(heading(`Resource templates (${templates.length})`), ...table(templateRows(templates)));
  }
  if (caps.prompts) {
    const prompts = await client.listPrompts(OPTIONS);
    out(heading(`Prompts (${prompts.length})`), ...table(promptRows(prompts)));
  }
  return { tools };
}

async function tryThings(client: Client, tools: Tool[]): Promise<void> {
  const caps = client.serverCapabilities ?? {};
  out(heading('Trying a few things'));
  await attempt('ping', async () => {
    const started = performance.now();
    await client.ping(OPTIONS);
    return [`pong in ${(performance.now() - started).toFixed(1)} ms`];
  });
  if (caps.logging)
    await attempt('logging/setLevel debug', async () => {
      await client.setLoggingLevel('debug', OPTIONS);
      return ['ok'];
    });
  for (const { tool, args, why } of toolsToTry(tools)) {
    await attempt(`call ${tool.name} ${JSON.stringify(args)}${why}`, async () => {
      const result = await client.callTool(tool.name, args, {
        ...OPTIONS,
        onprogress: (p) =>
          out(
            `    ↳ progress ${p.progress}${p.total === undefined ? '' : `/${p.total}`}${p.message ? ` ${p.message}` : ''}`,
          ),
      });
      const lines = result.content.map((block) => describeContent(block));
      if (result.structuredContent !== undefined)
        lines.push(`structured: ${truncate(JSON.stringify(result.structuredContent))}`);
      return result.isError ? lines.map((l) => `✗ tool error: ${l}`) : lines;
    });
  }
  if (caps.resources) {
    const [first] = await client.listResources(OPTIONS);
    if (first) {
      await attempt(`read ${first.uri}`, async () =>
        (await client.readResource(first.uri, OPTIONS)).contents.map((contents) =>
          describeResourceContents(contents),
        ),
      );
    }
  }
  if (caps.prompts) {
    const prompts = await client.listPrompts(OPTIONS);
    const prompt =
      Object.keys(PROMPT_ARGS)
        .map((name) => prompts.find((p) => p.name === name))
        .find(Boolean) ?? prompts.find((p) => !p.arguments?.some((a) => a.required));
    if (prompt) {
      const args = PROMPT_ARGS[prompt.name];
      await attempt(`get prompt ${prompt.name}${args ? ` ${JSON.stringify(args)}` : ''}`, async () => {
        const result = await client.getPrompt(prompt.name, args, OPTIONS);
        return result.messages.map((m) => `${m.role}: ${describeContent(m.content)}`);
      });
      const argument = prompt.arguments?.[0];
      if (caps.completions && argument) {
        await attempt(`complete ${prompt.name}.${argument.name} from ""`, async () => {
          const completion = await client.complete(
            { type: 'ref/prompt', name: prompt.name },
            { name: argument.name, value: '' },
            undefined,
            OPTIONS,
          );
          return [completion.values.length > 0 ? completion.values.join(', ') : '(no suggestions)'];
        });
      }
    }
  }
}

/** Whether `args` are what `tool`'s input schema asks for: every required property, none it does not name. */
function fits(tool: Tool, args: Record<string, unknown>): boolean {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const named = schema.properties === undefined ? undefined : Object.keys(schema.properties);
  return (
    (schema.required ?? []).every((name) => name in args) &&
    (named === undefined || Object.keys(args).every((name) => named.includes(name)))
  );
}

/**
 * The calls to try: the tools this client knows, where the server's schema takes the arguments it has for them;
 * else one tool that needs no argument and is marked read-only (or else not destructive), said why; else none, said so.
 */
function toolsToTry(tools: Tool[]): { tool: Tool; args: Record<string, unknown>; why: string }[] {
  const known = tools.flatMap((tool) => {
    const args = TOOL_TRIES[tool.name];
    return args !== undefined && fits(tool, args) ? [{ tool, args, why: '' }] : [];
  });
  if (known.length > 0 || tools.length === 0) return known;
  // Unannotated, a tool may be destructive (the specification's default): only one that says otherwise is tried.
  const free = tools.filter(
    (t) => fits(t, {}) && (t.annotations?.readOnlyHint === true || t.annotations?.destructiveHint === false),
  );
  const pick = free.find((t) => t.annotations?.readOnlyHint === true) ?? free[0];
  if (pick === undefined) {
    out(
      '  (no tool called: this client knows none of them by name, and none that needs no argument is marked read-only or not destructive)',
    );
    return [];
  }
  return [
    { tool: pick, args: {}, why: ' (it needs no argument; this client knows none of the tools by name)' },
  ];
}

/** One http(s) URL: Streamable HTTP (legacy HTTP+SSE fallback); anything else: a stdio command to start. */
function openTransport(command: string, args: string[]): Transport {
  if (args.length === 0 && /^https?:\/\//i.test(command) && URL.canParse(command)) {
    return new HttpClientTransport(command);
  }
  const stdio = new StdioClientTransport({ command, args, stderr: 'pipe' });
  forwardStderr(stdio);
  return stdio;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    console.error(USAGE);
    return command === undefined ? 1 : 0;
  }
  const transport = openTransport(command, args);
  const client = connectClient();
  try {
    await client.connect(transport, OPTIONS);
  } catch (e) {
    console.error(`example client: could not connect to "${argv.join(' ')}": ${errorMessage(e)}`);
    await transport.close();
    return 1;
  }
  try {
    const { tools } = await listEverything(client);
    await tryThings(client, tools);
    out('', 'Done.');
    return 0;
  } catch (e) {
    console.error(`example client: ${errorMessage(e)}`);
    return 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
