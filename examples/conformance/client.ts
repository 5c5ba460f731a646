// The client the official conformance suite runs in client mode:
//   conformance client --command "node dist/examples/conformance/client.js" --scenario initialize
// The suite appends the mock server's URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO (plus MCP_CONFORMANCE_CONTEXT, a JSON object, for some auth scenarios).
// Usage by hand: MCP_CONFORMANCE_SCENARIO=initialize npm run --silent conformance:client -- <url>
// Exit 0 when the scenario's flow completed, 1 otherwise (unknown scenario, bad input, failed flow).
import process from 'node:process';
import { authScenario } from './auth-scenarios.js';
import { SCENARIOS } from './scenarios.js';

const USAGE = `usage: MCP_CONFORMANCE_SCENARIO=<scenario> node dist/examples/conformance/client.js <server url>
scenarios: ${Object.keys(SCENARIOS).join(', ')}, auth/*`;

const log = (line: string) => console.error(`[conformance client] ${line}`);

/** Reads MCP_CONFORMANCE_CONTEXT: absent, or a JSON object (anything else is a harness error). */
function readContext(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new Error(`MCP_CONFORMANCE_CONTEXT is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('MCP_CONFORMANCE_CONTEXT is not a JSON object');
  return parsed as Record<string, unknown>;
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const url = argv.at(-1);
  const name = env.MCP_CONFORMANCE_SCENARIO;
  if (url === undefined || name === undefined || name === '') {
    console.error(USAGE);
    return 1;
  }
  if (!URL.canParse(url)) {
    console.error(`not a URL: ${JSON.stringify(url)}\n${USAGE}`);
    return 1;
  }
  // Every auth/* scenario runs the same OAuth client, configured from the suite's context.
  const scenario = name.startsWith('auth/')
    ? (run: Parameters<(typeof SCENARIOS)[string]>[0]) => authScenario(name, run)
    : Object.hasOwn(SCENARIOS, name)
      ? SCENARIOS[name]
      : undefined;
  if (scenario === undefined) {
    console.error(`unknown scenario ${JSON.stringify(name)}\n${USAGE}`);
    return 1;
  }
  let context: Record<string, unknown> | undefined;
  try {
    context = readContext(env.MCP_CONFORMANCE_CONTEXT);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    return 1;
  }
  const started = performance.now();
  log(`${name} against ${url}`);
  try {
    await scenario({ url, context, log });
  } catch (e) {
    log(`${name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return 1;
  }
  log(`${name} completed in ${Math.round(performance.now() - started)} ms`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2), process.env);
