// The raw HTTP baseline: plain node:http that reads the POST body, JSON.parses it and answers with a
// JSON.stringified JSON-RPC result. It knows initialize (handing out one fixed session id, so the session
// workloads can drive it unchanged), notifications (202), ping and tools/call of `echo`; nothing else, no checks.
// In `modern` mode its tools/call result carries what a 2026-07-28 result adds (`resultType` and the server's
// `_meta` serverInfo), so the stateless-revision workload is compared with a baseline of the same bytes out.
import { createServer } from 'node:http';
import { announce, httpArgs, listen, readBody } from './http-common.js';

type Msg = { id?: number | string; method?: string; params?: { arguments?: { text?: unknown } } };

const { port, mode } = httpArgs();
const SERVER_INFO = { name: 'bench-raw', version: '1.0.0' };

const http = createServer((req, res) => {
  readBody(req).then(
    (body) => {
      let msg: Msg;
      try {
        msg = JSON.parse(body.toString()) as Msg;
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      let result: object;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      switch (msg.method) {
        case 'tools/call':
          result =
            mode === 'modern'
              ? {
                  content: [{ type: 'text', text: msg.params?.arguments?.text }],
                  resultType: 'complete',
                  _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
                }
              : { content: [{ type: 'text', text: msg.params?.arguments?.text }] };
          break;
        case 'initialize':
          result = {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {} },
            serverInfo: SERVER_INFO,
          };
          headers['mcp-session-id'] = 'raw';
          break;
        default:
          result = {};
      }
      const out = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
      headers['content-length'] = String(Buffer.byteLength(out));
      res.writeHead(200, headers).end(out);
    },
    () => res.writeHead(400).end(),
  );
});
// Idle connections kept as long as mcpkit's serve() keeps them (65 s): node's 5 s default reset the clients of a
// server slowed down by valgrind (`http-callgrind.ts`) between their handshake and their calls.
http.keepAliveTimeout = 65_000;
await listen(http, port);
announce(http);
