// The raw baseline: plain Node reading NDJSON JSON-RPC from stdin and answering with JSON.parse/JSON.stringify only.
// It knows three methods (initialize, ping, tools/call of `echo`) and does nothing else: no validation, no
// bookkeeping. This is about the most any Node implementation can do over the same pipe. A request in the 2026-07-28
// revision (a `_meta` envelope in its params, no handshake before it) gets what that revision's result adds
// (`resultType` and the server's `_meta` serverInfo), the same bytes out as mcpkit, without checking the envelope.
import process from 'node:process';

type Msg = {
  id?: number | string;
  method?: string;
  params?: { arguments?: { text?: unknown }; _meta?: unknown };
};

const SERVER_INFO = { name: 'bench-raw', version: '1.0.0' };

let pending: Buffer[] = [];

function answer(text: string): void {
  const msg = JSON.parse(text) as Msg;
  if (msg.id === undefined || msg.method === undefined) return;
  let result: object;
  switch (msg.method) {
    case 'tools/call': {
      const content = [{ type: 'text', text: msg.params?.arguments?.text }];
      result =
        msg.params?._meta === undefined
          ? { content }
          : { content, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO } };
      break;
    }
    case 'initialize':
      result = {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: SERVER_INFO,
      };
      break;
    case 'ping':
      result = {};
      break;
    default:
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } })}\n`,
      );
      return;
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n`);
}

process.stdin.on('data', (chunk: Buffer) => {
  let start = 0;
  for (;;) {
    const nl = chunk.indexOf(10, start);
    if (nl === -1) {
      if (start < chunk.length) pending.push(chunk.subarray(start));
      return;
    }
    let line = chunk.subarray(start, nl);
    if (pending.length > 0) {
      pending.push(line);
      line = Buffer.concat(pending);
      pending = [];
    }
    start = nl + 1;
    if (line.length > 0) answer(line.toString());
  }
});
