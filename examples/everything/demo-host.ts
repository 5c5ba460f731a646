// The host section of `npm start`: two servers from one mcpkit config file (the example server and the README's
// weather server: two different servers, as a person's would be, so no resource is offered twice), their tools in one registry under
// qualified names, a call allowed by policy, one that needs approval (the demo's callback plays the person), one the
// policy denies, a sampling request answered through the review callback, and the activity log at the end.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { type ActivityEntry, Host } from '../../src/host.js';
import type { CallToolResult } from '../../src/index.js';
import { describeContent, heading, table, truncate } from './format.js';

/** The README's weather server, beside the example server in dist/examples. */
const WEATHER = fileURLToPath(new URL('../readme/server.js', import.meta.url));

/** Runs the host section, printing through `say`. */
export async function hostDemo(serverPath: string, say: (...lines: string[]) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-demo-host-'));
  const file = join(dir, 'mcpkit.json');
  writeFileSync(
    file,
    JSON.stringify(
      {
        host: { defaultApproval: 'ask' },
        servers: {
          alpha: { command: process.execPath, args: [serverPath], approval: { tools: { echo: 'allow' } } },
          beta: { command: process.execPath, args: [WEATHER], approval: { tools: { forecast: 'deny' } } },
        },
      },
      null,
      2,
    ),
  );
  const host = await Host.load(
    file,
    {},
    {
      approve: (request) => {
        say(
          `    approval asked: ${request.qualifiedName} ${JSON.stringify(request.arguments)} → the person allows once`,
        );
        return 'allow-once';
      },
      sampling: (params) => {
        const last = params.messages.at(-1)?.content;
        const asked = last && !Array.isArray(last) && last.type === 'text' ? last.text : '';
        return {
          role: 'assistant',
          content: { type: 'text', text: `(stand-in model) ${asked.length} characters received` },
          model: 'demo',
        };
      },
      reviewSampling: (review) => {
        say(
          review.result
            ? '    sampling answer reviewed: approved as is'
            : `    sampling request from ${review.server} reviewed: approved`,
        );
        return { approve: true };
      },
    },
  );
  try {
    say(heading('Host: two servers from one config file'), `  ${file}`);
    const states = await host.start();
    say(...table(states.map((s) => [s.name, s.state])));
    const tools = host.tools();
    const shown = tools.filter((t) => ['alpha__echo', 'alpha__add', 'beta__forecast'].includes(t.name));
    say(
      heading(`Host registry: ${tools.length} tools under qualified names, ${shown.length} of them shown`),
      ...table(shown.map((t) => [t.name, truncate(t.description ?? '', 60)])),
    );
    const show = (result: CallToolResult) =>
      say(...result.content.map((b) => `    ${result.isError ? '✗' : '→'} ${describeContent(b)}`));
    say(heading('Host: alpha__echo (allowed by the policy)'));
    show(await host.callTool('alpha__echo', { text: 'hello through the host' }));
    say(heading('Host: alpha__add (policy ask: the approval callback decides)'));
    show(await host.callTool('alpha__add', { a: 2, b: 3 }));
    say(heading('Host: beta__forecast (denied by the policy: a tool result, not an exception)'));
    show(await host.callTool('beta__forecast', { city: 'Oslo' }));
    say(heading('Host: alpha__test_sampling (the server asks the host model)'));
    show(await host.callTool('alpha__test_sampling', { prompt: 'Which flight is best?' }));
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const kinds = new Set(['tool', 'approval', 'sampling']);
  say(
    heading('Host: the activity log'),
    ...host.log
      .entries()
      .filter((e) => kinds.has(e.kind) || (e.kind === 'server' && e.name !== 'listed'))
      .map(describeEntry),
  );
}

function describeEntry(e: ActivityEntry): string {
  const time = e.time.slice(11, 23);
  const took = e.durationMs === undefined ? '' : ` ${e.durationMs.toFixed(1)} ms`;
  const how = e.approval === undefined ? '' : ` (${e.approval})`;
  const what = [e.server, e.kind === 'server' ? undefined : e.name].filter(Boolean).join(' ');
  return truncate(
    `  ${time} ${e.kind.padEnd(9)} ${what} ${e.outcome}${how}${took}${e.summary ? `: ${e.summary}` : ''}`,
    150,
  );
}
