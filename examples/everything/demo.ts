// What `npm start` runs: starts the everything server as a child process over stdio, connects a client
// and walks through every feature, printing a readable transcript; then the host section (demo-host.ts).

import { relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Client, type JsonSchema, type Tool } from '../../src/index.js';
import { StdioClientTransport } from '../../src/stdio.js';
import { hostDemo } from './demo-host.js';
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
import { lastUserText, scriptedModel } from './scripted.js';

const SERVER_PATH = fileURLToPath(new URL('./server.js', import.meta.url));
const say = (...lines: string[]) => {
  for (const line of lines) console.log(line);
};

let started = performance.now();
/** `[+52 ms]`: time since the current call began, to show notifications arriving while it runs. */
const clock = () => `[+${String(Math.round(performance.now() - started)).padStart(3)} ms]`;
const startClock = () => {
  started = performance.now();
};

/** A one-shot waiter for a client event. */
function nextEvent<T>(): { promise: Promise<T>; fire: (value: T) => void } {
  let fire!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

let toolsChanged = nextEvent<Tool[] | undefined>();
const resourceUpdated = nextEvent<string>();

function describeForm(schema: JsonSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, p]) => {
    const choices = Array.isArray(p.enum) ? ` one of ${p.enum.join('|')}` : '';
    return `      ${name}: ${String(p.type)}${choices}, default ${JSON.stringify(p.default)}`;
  });
}

const client = new Client(
  { name: 'mcpkit-demo', version: '0.1.0' },
  {
    sampling: (params) => {
      const answer = scriptedModel(params);
      say(
        `    client ← sampling/createMessage: "${truncate(lastUserText(params), 60)}" (maxTokens ${params.maxTokens})`,
      );
      say(`    client → answers as model "${answer.model}"`);
      return answer;
    },
    elicitation: (params) => {
      if (params.mode === 'url') return { action: 'decline' };
      const form = params;
      say(`    client ← elicitation/create: "${form.message}"`, ...describeForm(form.requestedSchema));
      const content = { name: 'Ada Lovelace', status: 'inactive' };
      say(`    client → accept ${JSON.stringify(content)} (the client fills in the other defaults)`);
      return { action: 'accept', content };
    },
    roots: [{ uri: 'file:///home/demo/project', name: 'demo project' }],
    onlog: (log) =>
      say(
        `    ${clock()} log [${log.level}] ${typeof log.data === 'string' ? log.data : JSON.stringify(log.data)}`,
      ),
    onToolsChanged: (tools) => toolsChanged.fire(tools),
    onResourceUpdated: (uri) => resourceUpdated.fire(uri),
    onerror: (e) => console.error(`demo client: ${e.message}`),
  },
);

async function callAndShow(name: string, args: Record<string, unknown> = {}): Promise<void> {
  startClock();
  const result = await client.callTool(name, args, {
    onprogress: (p) =>
      say(`    ${clock()} progress ${p.progress}/${p.total ?? '?'}${p.message ? ` ${p.message}` : ''}`),
  });
  for (const block of result.content)
    say(`    ${clock()} ${result.isError ? 'tool error' : 'result'} ${describeContent(block, 200)}`);
  if (result.structuredContent !== undefined)
    say(`    structuredContent ${JSON.stringify(result.structuredContent)}`);
}

async function overview(): Promise<void> {
  say(heading('Connected'));
  say(
    ...table([
      [
        'server',
        `${client.serverInfo?.name} ${client.serverInfo?.version} (pid of the child: ${transport.pid})`,
      ],
      ['protocol revision', client.protocolVersion ?? '?'],
      ['server capabilities', describeCapabilities(client.serverCapabilities)],
      ['client capabilities', describeCapabilities(client.capabilities)],
    ]),
  );
  const tools = await client.listTools();
  say(heading(`Tools (${tools.length})`), ...table(toolRows(tools)));
  const resources = resourceRows(await client.listResources());
  const templates = templateRows(await client.listResourceTemplates());
  say(
    heading(`Resources (${resources.length}) and templates (${templates.length})`),
    ...table([...resources, ...templates]),
  );
  say(heading('Prompts'), ...table(promptRows(await client.listPrompts())));
}

async function walkthrough(): Promise<void> {
  say(heading('Progress: test_tool_with_progress'));
  await callAndShow('test_tool_with_progress');

  say(heading('Logging: setLoggingLevel(debug), then test_tool_with_logging'));
  await client.setLoggingLevel('debug');
  await callAndShow('test_tool_with_logging');

  say(heading('Structured output: add {a: 2, b: 3}'));
  await callAndShow('add', { a: 2, b: 3 });

  say(heading('Resources: text, binary and templated'));
  for (const uri of ['test://static-text', 'test://static-binary', 'test://template/42/data']) {
    for (const contents of (await client.readResource(uri)).contents)
      say(`    ${describeResourceContents(contents)}`);
  }

  say(heading('Prompt with arguments: test_prompt_with_arguments'));
  const prompt = await client.getPrompt('test_prompt_with_arguments', { arg1: 'sunny', arg2: 'Lisbon' });
  for (const m of prompt.messages) say(`    ${m.role}: ${describeContent(m.content)}`);

  say(heading('Completion'));
  const names = await client.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'A' });
  say(`    greet.name from "A"        → ${names.values.join(', ')}`);
  const ids = await client.complete(
    { type: 'ref/resource', uri: 'test://items/{id}' },
    { name: 'id', value: 'g' },
  );
  say(`    test://items/{id}.id from "g" → ${ids.values.join(', ')}`);

  say(heading('Sampling: test_sampling (the client pretends to be a model)'));
  await callAndShow('test_sampling', { prompt: 'What is the capital of Portugal?' });

  say(heading('Elicitation: test_elicitation_sep1034_defaults (partial answer, defaults applied)'));
  await callAndShow('test_elicitation_sep1034_defaults');

  say(heading('Roots: the roots tool asks the client'));
  await callAndShow('roots');

  say(heading('Subscription: subscribe, then update_watched'));
  await client.subscribeResource('test://watched-resource');
  await callAndShow('update_watched');
  say(`    notifications/resources/updated for ${await resourceUpdated.promise}`);
  const [watched] = (await client.readResource('test://watched-resource')).contents;
  if (watched) say(`    re-read: ${describeResourceContents(watched)}`);

  say(heading('List changes: toggle_feature enables dynamic_tool'));
  const before = new Set((await client.listTools()).map((t) => t.name));
  toolsChanged = nextEvent();
  await callAndShow('toggle_feature', { enabled: true });
  const after = (await toolsChanged.promise) ?? [];
  say(`    notifications/tools/list_changed → refreshed list has ${after.length} tools`);
  for (const t of after.filter((t) => !before.has(t.name))) say(`    + ${t.name}: ${t.description ?? ''}`);
  await callAndShow('dynamic_tool');
}

/** The same walk from the command line: the `mcpkit` commands equivalent to what the demo did. */
function commandLine(): string[] {
  const server = `-- node ${relative(process.cwd(), SERVER_PATH) || SERVER_PATH}`;
  return [
    heading('The same from the command line: mcpkit'),
    '  (`npx mcpkit` where the package is installed; in this checkout `node dist/pkg/cli.js`)',
    `    mcpkit discover ${server}`,
    `    mcpkit tools ${server}`,
    `    mcpkit resources ${server}`,
    `    mcpkit prompts ${server}`,
    `    mcpkit call test_tool_with_progress ${server}`,
    `    mcpkit call test_tool_with_logging --log-level debug ${server}`,
    `    mcpkit call add a=2 b=3 --format json ${server}`,
    `    mcpkit read test://static-text ${server}`,
    `    mcpkit prompt greet name=Ann ${server}`,
    `    mcpkit complete --prompt greet name A ${server}`,
    `    mcpkit call test_multiple_content_types ${server}   # --save-media DIR saves the image`,
  ];
}

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [SERVER_PATH],
  stderr: 'inherit',
});
say(`Starting ${truncate(`${process.execPath} ${SERVER_PATH}`, 100)} over stdio…`);
try {
  await client.connect(transport);
  await overview();
  await walkthrough();
  await client.close();
  say(heading('Closed'), '  The client closed the connection and the server process exited.');
  await hostDemo(SERVER_PATH, say);
  say(...commandLine());
} catch (e) {
  console.error(`demo failed: ${errorMessage(e)}`);
  await client.close();
  process.exitCode = 1;
}
