// The client scenarios of the official conformance suite (0.1.16), one function each, keyed by the
// name the suite passes in MCP_CONFORMANCE_SCENARIO. Each connects to the suite's mock server at `url`.
import { Client, type ClientOptions, HttpClientTransport } from '../../src/index.js';

/** What a scenario gets: the mock server's URL, the suite's context (auth scenarios) and a log line writer. */
export interface ScenarioRun {
  url: string;
  /** The parsed `MCP_CONFORMANCE_CONTEXT`, when the suite set one. */
  context: Record<string, unknown> | undefined;
  log: (line: string) => void;
}

/** One scenario: resolves when the flow completed, throws a message for the user otherwise. */
export type Scenario = (run: ScenarioRun) => Promise<void>;

const INFO = { name: 'mcpkit-conformance-client', version: '0.1.0' };
/** Per request; the suite kills the client after 30 s. */
const TIMEOUT_MS = 10_000;

/** Connects our Client over HttpClientTransport; the mock servers speak the stateful (2025) era only. */
async function connect(run: ScenarioRun, options: ClientOptions = {}): Promise<Client> {
  const client = new Client(INFO, {
    era: 'stateful',
    // Transport hiccups the flow survives (a refused GET stream, say) are worth seeing, not fatal.
    onerror: (e) => run.log(`(reported) ${e.message}`),
    ...options,
  });
  const transport = new HttpClientTransport(run.url);
  await client.connect(transport, { timeout: TIMEOUT_MS });
  run.log(`connected: ${client.serverInfo?.name ?? '?'} at ${client.protocolVersion} (${transport.kind})`);
  return client;
}

/** Runs `body` with a connected client and always closes it. */
async function withClient(
  run: ScenarioRun,
  body: (client: Client) => Promise<void>,
  options?: ClientOptions,
): Promise<void> {
  const client = await connect(run, options);
  try {
    await body(client);
  } finally {
    await client.close();
  }
}

/** Lists the tools, checks `name` is among them, calls it and fails on an error result. */
async function callListedTool(
  run: ScenarioRun,
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const tools = await client.listTools({ timeout: TIMEOUT_MS });
  run.log(`tools: ${tools.map((t) => t.name).join(', ') || '(none)'}`);
  if (!tools.some((t) => t.name === name)) throw new Error(`the server does not list the tool "${name}"`);
  const result = await client.callTool(name, args, { timeout: TIMEOUT_MS });
  const text = result.content
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join(' ');
  if (result.isError) throw new Error(`${name} returned an error result: ${text}`);
  run.log(`${name} → ${text}`);
  return text;
}

/** The scenarios this client knows, by the suite's names. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  // The handshake alone: initialize (2025-11-25, our client info), initialized, then close.
  initialize: (run) => withClient(run, async () => {}),

  // A stateless SDK server behind /mcp: list, then call add_numbers.
  tools_call: (run) =>
    withClient(run, async (client) => {
      await callListedTool(run, client, 'add_numbers', { a: 5, b: 3 });
    }),

  // The server elicits a form whose fields all have defaults; we accept with nothing filled in and the
  // Client fills in every default (SEP-1034) before answering.
  'elicitation-sep1034-client-defaults': (run) =>
    withClient(
      run,
      async (client) => {
        await callListedTool(run, client, 'test_client_elicitation_defaults', {});
      },
      {
        capabilities: { elicitation: { form: { applyDefaults: true } } },
        elicitation: (params) => {
          run.log(`elicitation: "${params.message}" → accept, defaults left to the client`);
          return { action: 'accept', content: {} };
        },
      },
    ),

  // The tools/call stream closes after a priming event carrying `retry: 500`; the transport must wait
  // those 500 ms and resume with GET + Last-Event-ID, where the result arrives.
  'sse-retry': (run) =>
    withClient(run, async (client) => {
      await callListedTool(run, client, 'test_reconnection', {});
    }),
};
