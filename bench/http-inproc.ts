// The Streamable HTTP endpoint of every HTTP bench setup in one process, without sockets (issue 24): the core
// `serve()` puts behind node:http (`createStreamableHttpHandler`, with serve()'s defaults: the load shedder, the Host
// check of a loopback server) answering `tools/call echo` as the HTTP workloads send it. For callgrind instruction
// counts, which do not depend on how busy the machine is:
//
//   node dist/bench/http-inproc.js <stateless|json|sse|modern|raw|raw-modern> <calls> [inFlight]  # prints ns per call
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node dist/bench/http-inproc.js sse 20000
//
// Instructions per call: two call counts, the difference of the totals over the difference of the counts (start-up,
// the session handshakes, warm-up and compilation cancel out). `bench/http-callgrind.ts` counts the whole server
// process instead (node:http and the adapter included).
import { createStreamableHttpHandler, type StreamableHttpOptions } from 'mcpkit';
import { echoServer } from './servers/echo-server.js';

type Setup = 'stateless' | 'json' | 'sse' | 'modern' | 'raw' | 'raw-modern';
type Handler = ReturnType<typeof createStreamableHttpHandler>;
type Reply = Awaited<ReturnType<Handler['handle']>>;

const TEXT = 'hello world'; // 11 B, as the HTTP workloads
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcpkit-bench', version: '1.0.0' },
};
const BASE: Readonly<Record<string, string>> = {
  host: '127.0.0.1:3000',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const EMPTY_QUERY = new URLSearchParams();

/** A POST as the node:http adapter presents it to the core (headers by lower-case name, the body as text). */
class FakeRequest {
  readonly method = 'POST';
  readonly path = '/mcp';
  readonly remoteAddress = '127.0.0.1';
  authInfo: unknown;
  readonly #body: string;
  readonly #headers: Readonly<Record<string, string>>;
  constructor(body: string, headers: Readonly<Record<string, string>>) {
    this.#body = body;
    this.#headers = headers;
  }
  get query(): URLSearchParams {
    return EMPTY_QUERY;
  }
  header(name: string): string | undefined {
    return this.#headers[name];
  }
  text(): Promise<string | undefined> {
    return Promise.resolve(this.#body);
  }
  onGone(): void {}
}

/** The reply's text: the JSON body, or every SSE event written until the stream closes. */
function textOf(reply: Reply): Promise<string> {
  if (!('sse' in reply)) return Promise.resolve(reply.body ?? '');
  return new Promise((resolve) => {
    let text = '';
    const sink = {
      closed: false,
      onclose: undefined as (() => void) | undefined,
      write(chunk: string) {
        text += chunk;
        return true;
      },
      close() {
        sink.closed = true;
        resolve(text);
      },
    };
    reply.sse(sink);
  });
}

/**
 * `raw` and `raw-modern`: what `servers/raw-http.ts` does with a request once node:http has it (the body parsed, the
 * result built, encoded once), behind the same request object and loop, so the endpoint's own cost is the difference.
 * The reply's byte length is left out, as it is for mcpkit here (its node:http adapter measures it).
 */
function rawHandler(modern: boolean): Pick<Handler, 'handle' | 'close'> {
  const info = { name: 'bench-raw', version: '1.0.0' };
  return {
    handle: (req) =>
      req.text(0).then((body) => {
        const msg = JSON.parse(body ?? '') as { id: number; params: { arguments: { text: string } } };
        const content = [{ type: 'text', text: msg.params.arguments.text }];
        const result = modern
          ? { content, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': info } }
          : { content };
        const out = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
        return { status: 200, headers: { 'content-type': 'application/json' }, body: out };
      }),
    close: () => Promise.resolve(),
  };
}

function options(setup: Setup): StreamableHttpOptions {
  // The load shedder as serve() has it, with a delay limit no valgrind run reaches (a refusal would fail the run).
  const common = { allowedHosts: ['127.0.0.1:3000'], overload: { maxEventLoopDelayMs: 600_000 } };
  if (setup === 'stateless') return { ...common, sessions: false, responseMode: 'json' };
  if (setup === 'json') return { ...common, responseMode: 'json' };
  if (setup === 'sse') return { ...common, responseMode: 'sse' };
  return common;
}

/** The headers of a client's calls: a session's (after its handshake), or the stateless ones. */
async function clientHeaders(handler: Handler, setup: Setup): Promise<Record<string, string>> {
  if (setup === 'stateless' || setup === 'raw') return { ...BASE, 'mcp-protocol-version': '2025-11-25' };
  if (setup === 'modern' || setup === 'raw-modern')
    return { ...BASE, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' };
  const init = await handler.handle(
    new FakeRequest(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      }),
      BASE,
    ),
  );
  await textOf(init);
  const sessionId = init.headers['mcp-session-id'];
  if (sessionId === undefined) throw new Error(`initialize failed: ${init.status}`);
  const headers = { ...BASE, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
  const done = await handler.handle(
    new FakeRequest('{"jsonrpc":"2.0","method":"notifications/initialized"}', headers),
  );
  if (done.status !== 202) throw new Error(`notifications/initialized: ${done.status}`);
  return headers;
}

const [setupArg = 'stateless', callsArg = '20000', inFlightArg = '8'] = process.argv.slice(2);
const setup = setupArg as Setup;
const calls = Number(callsArg);
const inFlight = Number(inFlightArg);
if (
  !['stateless', 'json', 'sse', 'modern', 'raw', 'raw-modern'].includes(setup) ||
  !Number.isInteger(calls) ||
  calls < 1
)
  throw new Error('usage: http-inproc.js <stateless|json|sse|modern|raw|raw-modern> <calls> [inFlight]');

const server = echoServer(false);
const handler =
  setup === 'raw' || setup === 'raw-modern'
    ? (rawHandler(setup === 'raw-modern') as Handler)
    : createStreamableHttpHandler(server, options(setup));
// One client (a session of its own in the session setups) per call in flight, as the HTTP workloads.
const clients = await Promise.all(Array.from({ length: inFlight }, () => clientHeaders(handler, setup)));
const params = JSON.stringify({
  name: 'echo',
  arguments: { text: TEXT },
  ...(setup === 'modern' || setup === 'raw-modern' ? { _meta: MODERN_META } : {}),
});
const rest = `,"method":"tools/call","params":${params}}`;
let nextId = 1;

const one = async (headers: Record<string, string>): Promise<void> => {
  const id = nextId++;
  const reply = await handler.handle(new FakeRequest(`{"jsonrpc":"2.0","id":${id}${rest}`, headers));
  const text = await textOf(reply);
  if (reply.status !== 200 || !text.includes(TEXT)) throw new Error(`bad reply: ${reply.status} ${text}`);
};
const t0 = process.hrtime.bigint();
for (let done = 0; done < calls; done += inFlight) {
  const batch: Promise<void>[] = [];
  for (let i = 0; i < inFlight && done + i < calls; i++)
    batch.push(one(clients[i] as Record<string, string>));
  await Promise.all(batch);
  // A turn of the event loop per batch, as between reads of sockets (the load shedder's probe timer fires).
  await new Promise((resolve) => setImmediate(resolve));
}
const ns = Number(process.hrtime.bigint() - t0);
process.stdout.write(`${setup} ${calls} calls ${(ns / calls).toFixed(0)} ns/call\n`);
await handler.close();
