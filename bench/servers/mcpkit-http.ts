// mcpkit under test over Streamable HTTP: the same `echo` tool as mcpkit-stdio.ts, served with `serve()` from
// 'mcpkit/node' on 127.0.0.1. Modes: stateless (sessions off, JSON replies), json (sessions, JSON replies), sse
// (sessions, SSE replies), default (serve() defaults: sessions, 'auto' replies; the same endpoint also answers the
// stateless 2026-07-28 revision, which the 'modern' workload sends), stateless-auth (stateless with a JWT bearer
// token checked on every request, for the auth workload), stateless-guards (stateless with a rate limit per client on
// tool calls that the load never reaches, access rules, and an audit record of every call to a callback: issue 13),
// stateless-otel (stateless, traced and measured by mcpkit/otel with the real SDK: every span sampled, spans and
// metrics handed to exporters that drop them: issue 29).

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { jwtVerifier } from 'mcpkit/auth';
import { type ServeOptions, serve } from 'mcpkit/node';
import { startBenchIssuer } from './auth-issuer.js';
import { echoServer } from './echo-server.js';
import { announce, httpArgs } from './http-common.js';

const { port, mode } = httpArgs();

const server = echoServer(mode === 'stateless-guards');

if (mode === 'stateless-otel') await instrument();

// `bench/http-callgrind.ts` runs this server under valgrind, tens of times slower: the load shedder stays on, with an
// event-loop delay limit no such run reaches (a refusal would fail it).
const slowed = process.env.BENCH_MAX_LOOP_DELAY_MS;
// Its time limits on a request's head and body likewise (node answered 408 to a server starved under valgrind on a
// loaded machine): kept on, with limits no such run reaches.
const overload: ServeOptions = slowed
  ? {
      overload: { maxEventLoopDelayMs: Number(slowed) },
      headersTimeoutMs: Number(slowed),
      bodyTimeoutMs: Number(slowed),
    }
  : {};
const modeOptions: ServeOptions =
  mode === 'stateless' ||
  mode === 'stateless-auth' ||
  mode === 'stateless-guards' ||
  mode === 'stateless-otel'
    ? { sessions: false, responseMode: 'json' }
    : mode === 'json'
      ? { responseMode: 'json' }
      : mode === 'sse'
        ? { responseMode: 'sse' }
        : {};
const options: ServeOptions = { ...modeOptions, ...overload };
if (mode === 'stateless-auth') {
  // The same stateless server as a protected resource: a JWT bearer token on every request, checked against the
  // keys of an issuer started in this process. The audience names the port, so the port is chosen first.
  const chosen = port === 0 ? await freePort() : port;
  const resource = `http://127.0.0.1:${chosen}/mcp`;
  const { issuer, token } = await startBenchIssuer(resource);
  const auth = {
    verifier: jwtVerifier({ issuer, audience: resource }),
    resource,
    authorizationServers: [issuer],
  };
  const running = await serve(server, { ...options, port: chosen, legacySse: false, auth });
  process.stdout.write(`token ${token}\n`);
  announce(running.httpServer);
} else {
  const running = await serve(server, { ...options, port, legacySse: false });
  announce(running.httpServer);
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const chosen = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return chosen;
}

/** Registers the OpenTelemetry SDK as `otel-sdk.ts` says, then instruments the server. */
async function instrument(): Promise<void> {
  const { registerBenchSdk } = await import('./otel-sdk.js');
  await registerBenchSdk();
  const { instrumentServer } = await import('mcpkit/otel');
  instrumentServer(server);
}
