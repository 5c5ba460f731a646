import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { test } from 'node:test';
import { McpkitError } from '../../jsonrpc/errors.js';
import { checkedFetch } from './checked-fetch.js';

/** A lookup answering every name with `addresses` (as the system resolver would for a name pointed there). */
function answering(addresses: string[]): LookupFunction {
  return (_hostname, options, callback) => {
    const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all === true) callback(null, all);
    else callback(null, all[0]?.address ?? '', all[0]?.family ?? 4);
  };
}

async function withServer(
  handle: (req: IncomingMessage, body: string) => [number, Record<string, string>, string | null],
  run: (port: number, seen: string[]) => Promise<void>,
): Promise<void> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? '-'} ${body}`);
      const [status, headers, text] = handle(req, body);
      res.writeHead(status, headers);
      res.end(text ?? undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run((server.address() as AddressInfo).port, seen);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const refuse = (address: string) => {
  if (address !== '127.0.0.1') throw new McpkitError('AUTH_PRIVATE_NETWORK', `refused ${address}`);
};

test('every resolved address is admitted before connecting: one refused fails the request, with no connection', async () => {
  await withServer(
    () => [200, {}, 'reached'],
    async (port, seen) => {
      const fetch = checkedFetch({ lookup: answering(['127.0.0.1', '10.0.0.1']) });
      const admitted: string[] = [];
      await assert.rejects(
        fetch(new URL(`http://mixed.example:${port}/x`), {}, (address) => {
          admitted.push(address);
          refuse(address);
        }),
        (e) =>
          e instanceof McpkitError && e.code === 'AUTH_PRIVATE_NETWORK' && e.message === 'refused 10.0.0.1',
      );
      assert.deepEqual(admitted, ['127.0.0.1', '10.0.0.1']);
      assert.deepEqual(seen, []);
    },
  );
});

test('an admitted address: the request and its answer as fetch gives them', async () => {
  await withServer(
    (req, body) =>
      req.url === '/empty'
        ? [204, { 'x-kind': 'empty' }, null]
        : [
            201,
            { 'content-type': 'application/json', 'x-echo': String(req.headers['x-ask'] ?? '') },
            JSON.stringify({ body }),
          ],
    async (port, seen) => {
      const fetch = checkedFetch({ lookup: answering(['127.0.0.1']) });
      const form = await fetch(
        new URL(`http://named.example:${port}/token`),
        { method: 'POST', headers: { 'x-ask': 'hi' }, body: new URLSearchParams({ a: '1', b: 'two words' }) },
        refuse,
      );
      assert.equal(form.status, 201);
      assert.equal(form.headers.get('x-echo'), 'hi');
      assert.deepEqual(await form.json(), { body: 'a=1&b=two+words' });
      const text = await fetch(
        new URL(`http://named.example:${port}/register`),
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' },
        refuse,
      );
      assert.deepEqual(await text.json(), { body: '{"x":1}' });
      const empty = await fetch(new URL(`http://named.example:${port}/empty`), {}, refuse);
      assert.equal(empty.status, 204);
      assert.equal(empty.body, null);
      assert.equal(empty.headers.get('x-kind'), 'empty');
      assert.deepEqual(seen, [
        'POST /token application/x-www-form-urlencoded;charset=UTF-8 a=1&b=two+words',
        'POST /register application/json {"x":1}',
        'GET /empty - ',
      ]);
    },
  );
});

test("the resolver's own failure is the request's error", async () => {
  const fetch = checkedFetch({
    lookup: (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0),
  });
  await assert.rejects(
    fetch(new URL('https://nowhere.example/'), {}, () => undefined),
    (e) => e instanceof Error && /ENOTFOUND nowhere\.example/.test(e.message),
  );
});
