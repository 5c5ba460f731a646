import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type AllowedHost, parseAllowedHost } from './allowed-hosts.js';
import { type FilteringProxy, type ProxyEvent, startFilteringProxy } from './proxy.js';

const origin = createServer((_req, res) => res.end('origin'));
let port = 0;
let proxy: FilteringProxy;
const events: ProxyEvent[] = [];

function hosts(...entries: string[]): AllowedHost[] {
  return entries.map((e) => parseAllowedHost(e) as AllowedHost);
}

/** A CONNECT through the proxy's Unix socket: the status it answers. */
function connectThrough(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: proxy.socket, method: 'CONNECT', path: target });
    req.once('connect', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end();
  });
}

/** A plain HTTP request through the proxy: status and body. */
function getThrough(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: proxy.socket, path: url });
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      res.once('end', () => resolve(`${res.statusCode} ${body.trim()}`));
    });
    req.once('error', reject);
    req.end();
  });
}

before(async () => {
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  port = (origin.address() as AddressInfo).port;
  // "internal.example" resolves to the loopback address: a name the sandbox may not turn into the host's services.
  const names: Record<string, string> = {
    'internal.example': '127.0.0.1',
    'public.example': '127.0.0.1',
    localhost: '127.0.0.1',
  };
  proxy = await startFilteringProxy(
    hosts(`127.0.0.1:${port}`, 'internal.example', 'localhost'),
    (e) => events.push(e),
    async (name) => {
      const address = names[name];
      if (!address) throw new Error(`ENOTFOUND ${name}`);
      return [{ address }];
    },
  );
});

after(async () => {
  await proxy.close();
  origin.close();
});

test('the allowed address and port pass, by CONNECT and by plain HTTP', async () => {
  assert.equal(await connectThrough(`127.0.0.1:${port}`), 200);
  assert.equal(await getThrough(`http://127.0.0.1:${port}/x`), '200 origin');
  assert.equal(await getThrough(`http://localhost:${port}/x`), '200 origin');
  assert.ok(events.some((e) => e.outcome === 'allowed' && e.target === `127.0.0.1:${port}`));
});

test('anything else is refused with 403 and reported', async () => {
  assert.equal(await connectThrough(`127.0.0.1:${port + 1}`), 403);
  assert.match(
    await getThrough(`http://public.example:${port}/`),
    /^403 mcpkit sandbox: public\.example:\d+ is not in this server's network grants/,
  );
  assert.match(await getThrough('https://127.0.0.1/'), /^400 /);
  assert.ok(events.some((e) => e.outcome === 'refused' && e.target === `127.0.0.1:${port + 1}`));
});

test('an allowed name resolving to a loopback address is refused (only a grant naming the address lets it through)', async () => {
  assert.equal(await connectThrough(`internal.example:${port}`), 403);
  const refusal = events.find((e) => e.target === `internal.example:${port}`);
  assert.match(refusal?.reason ?? '', /resolves to a private, loopback or link-local address/);
});
