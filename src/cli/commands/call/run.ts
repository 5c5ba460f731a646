// What `mcpkit call` does once it runs (loaded only then).

import { checkArguments, parseArgsJson, parsePairs, toolArguments } from '../../shared/coerce.js';
import type { Connection } from '../../shared/connect.js';
import { splitTarget } from '../../shared/execute.js';
import { CliError, ExitCode } from '../../shared/exit.js';
import { nearest } from '../../shared/nearest.js';
import { type Format, note, out, outJson } from '../../shared/output.js';
import { MediaSaver, renderBlocks } from '../../shared/render.js';
import { withConnection } from '../../shared/session.js';
import type { CallFlags } from './flags.js';
import { progressView } from './progress.js';

/** `mcpkit call`'s words: the target (unless a command after `--`), the tool, then its `key=value` arguments. */
export async function call(words: readonly string[], flags: CallFlags): Promise<number> {
  const { target, rest } = splitTarget(words);
  const [tool, ...pairs] = rest;
  if (tool === undefined)
    throw new CliError(ExitCode.usage, 'call needs a tool name: mcpkit call <target> <tool> [key=value …]');
  return callTool(target, tool, pairs, flags);
}

/** Calls `tool` and prints its result; resolves with the exit code (5 when the result is an error). */
async function callTool(
  target: string | undefined,
  tool: string,
  words: readonly string[],
  flags: CallFlags,
): Promise<number> {
  const pairs = parsePairs(words, 'tool arguments');
  const base = parseArgsJson(flags.argsJson);
  return withConnection(target, flags, async (connection: Connection, format: Format) => {
    const { client, timeout } = connection;
    const tools = await client.listTools({ timeout });
    const found = tools.find((t) => t.name === tool);
    if (found === undefined) {
      const close = nearest(
        tool,
        tools.map((t) => t.name),
      );
      throw new CliError(
        ExitCode.usage,
        `no tool "${tool}" on ${connection.target.label}${close === undefined ? '' : ` (did you mean "${close}"?)`}`,
      );
    }
    const args = toolArguments(tool, found.inputSchema, pairs, base, {
      allowUnknown: flags.allowUnknownArgs === true,
    });
    await checkArguments(tool, found.inputSchema, args);
    const progress = progressView();
    let result: Awaited<ReturnType<typeof client.callTool>>;
    try {
      result = await client.callTool(tool, args, { timeout, onprogress: (p) => progress.update(p) });
    } finally {
      progress.done();
    }
    if (format === 'json') outJson(result);
    else {
      const text = await renderBlocks(result.content, new MediaSaver(flags.saveMedia));
      if (text !== '') out(text);
      if (result.structuredContent !== undefined && result.content.length === 0)
        out(JSON.stringify(result.structuredContent, null, 2));
    }
    if (result.isError === true) {
      const message = `the tool "${tool}" returned an error (isError)`;
      if (format === 'text') note(`error: ${message}`);
      else note(JSON.stringify({ error: { kind: 'tool_error', exitCode: ExitCode.toolError, message } }));
      return ExitCode.toolError;
    }
    return ExitCode.ok;
  });
}
