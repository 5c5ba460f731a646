// A URL target whose server goes away in the middle of a command: exit 4 (unreachable), not 2 (a stdio server
// that failed), as exit.ts maps connection-class errors by the target's kind.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { mcpkit } from './helpers.js';

test('a URL server that drops the connection after the handshake: exit 4 (text and json)', async () => {
  // Answers initialize and its notification, then drops the socket of every other request.
  const http = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const m = JSON.parse(body) as { id?: number; method: string };
      if (m.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: m.id,
            result: {
              protocolVersion: '2025-11-25',
              capabilities: { tools: {} },
              serverInfo: { name: 'drops', version: '1' },
            },
          }),
        );
      } else if (m.id === undefined) res.writeHead(202).end();
      else req.socket.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  try {
    const text = await mcpkit(['tools', url, '--era', 'legacy']);
    assert.equal(text.code, 4, text.stderr);
    const json = await mcpkit(['tools', url, '--era', 'legacy', '--format', 'json']);
    assert.equal(json.code, 4, json.stderr);
    assert.match(json.stderr, /"kind":"unreachable"/);
  } finally {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
});
