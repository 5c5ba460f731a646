// The "everything" example server. Usage:
//   node dist/examples/everything/server.js [--http PORT [--redis URL] [--auth-issuer URL] [--auth-introspect URL]]
//                                           [--rate-limit RATE] [--audit FILE] [--otel]
// Over stdio (the default) nothing but protocol messages goes to stdout; diagnostics go to stderr.
//   --rate-limit RATE      tool calls limited per client address, per principal with --auth-* ("5/s", "100/min",
//                          "10/30s"; never per session or client id, which a client changes at will): over it a
//                          call is refused with error -32080 and data.retryAfterMs (a stateless HTTP request gets
//                          429 and Retry-After).
//   --audit FILE           a JSONL audit record of every tool call, resource read, prompt get, sampling and
//                          elicitation request appended to FILE (rotated at 10 MiB), in stdio and HTTP mode alike.
//   --otel                 spans and metrics by the MCP semantic conventions exported over OTLP/HTTP to
//                          OTEL_EXPORTER_OTLP_ENDPOINT (OTEL_EXPORTER_OTLP_PROTOCOL http/json or http/protobuf,
//                          OTEL_SERVICE_NAME; mcpkit/otel and the OpenTelemetry SDK loaded only then).
// Over HTTP it can protect itself as an OAuth 2.1 resource server (audience http://127.0.0.1:PORT/mcp):
//   --auth-issuer URL      JWT access tokens checked with that issuer's keys (jwks_uri of its metadata); the
//                          Protected Resource Metadata names that issuer.
//   --auth-introspect URL  opaque tokens checked at that RFC 7662 introspection endpoint, authenticating with the
//                          client credentials in MCPKIT_INTROSPECTION_CLIENT_ID and MCPKIT_INTROSPECTION_CLIENT_SECRET
//                          (client_secret_basic). The metadata names --auth-issuer when given (then `iss` is
//                          checked too), else the endpoint's origin.
// Protected, it names the scopes a client asks for (SCOPES: mcp:read mcp:write) in its 401 challenge (`scope=`) and
// in the metadata (`scopes_supported`), as the specification says servers SHOULD: a client that asks for no scope
// (the official SDK 1.x client when nothing names one) is refused by an authorization server that grants only what
// is asked for. No tool needs a scope here: they name what a token for this server is for.
// --redis URL makes it one instance of a cluster on that Redis (sessions, resumable streams, server requests, change
// notifications and tasks shared: run several behind a load balancer without affinity; `npm run cluster`).
// MCPKIT_REQUEST_STATE_KEY (at least 32 bytes), when set, signs the stateless revision's requestState: give every
// instance the same one.
import process from 'node:process';
import { parseArgs } from 'node:util';
import { introspectionVerifier, jwtVerifier } from '../../src/auth.js';
import type { GuardOptions, McpServer, ResourceAuthOptions } from '../../src/index.js';
import { parseRate } from '../../src/index.js';
import { type JsonlAuditSink, jsonlAuditSink, serve } from '../../src/node.js';
import type { RedisCluster } from '../../src/redis.js';
import { StdioServerTransport } from '../../src/stdio.js';
import { registerDiceApp } from './app.js';
import { registerClusterTools } from './cluster-tools.js';
import { createEverythingServer } from './everything.js';

const USAGE =
  'usage: server.js [--http PORT [--redis URL] [--auth-issuer URL] [--auth-introspect URL]] [--rate-limit RATE] [--audit FILE] [--otel]';

/** How to serve, as read from the command line. */
type Mode = (
  | { transport: 'stdio' }
  | {
      transport: 'http';
      port: number;
      issuer: string | undefined;
      introspect: string | undefined;
      redis: string | undefined;
    }
) & { rateLimit: string | undefined; audit: string | undefined; otel: boolean };

/** Reads the command line; throws a message for the user on bad input. */
function parseMode(argv: string[]): Mode {
  const { values } = parseArgs({
    args: argv,
    options: {
      http: { type: 'string' },
      'auth-issuer': { type: 'string' },
      'auth-introspect': { type: 'string' },
      'rate-limit': { type: 'string' },
      audit: { type: 'string' },
      redis: { type: 'string' },
      otel: { type: 'boolean' },
    },
    strict: true,
  });
  const rateLimit = values['rate-limit'];
  if (rateLimit !== undefined) parseRate(rateLimit, '--rate-limit');
  const audit = values.audit;
  if (audit === '') throw new Error('--audit needs a file name');
  const guards = { rateLimit, audit, otel: values.otel === true };
  const issuer = values['auth-issuer'];
  const introspect = values['auth-introspect'];
  const redis = values.redis;
  if (values.http === undefined) {
    if (issuer !== undefined || introspect !== undefined)
      throw new Error('--auth-* options need --http PORT');
    if (redis !== undefined) throw new Error('--redis needs --http PORT');
    return { transport: 'stdio', ...guards };
  }
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--http needs a port number, got "${values.http}"`);
  if ((issuer !== undefined || introspect !== undefined) && port === 0)
    throw new Error('--auth-* options need a fixed port: the audience is http://127.0.0.1:PORT/mcp');
  for (const [flag, url] of [
    ['--auth-issuer', issuer],
    ['--auth-introspect', introspect],
  ] as const) {
    if (url !== undefined && !URL.canParse(url)) throw new Error(`${flag} needs a URL, got "${url}"`);
  }
  if (redis !== undefined && !/^rediss?:\/\//.test(redis))
    throw new Error(`--redis needs a redis:// URL, got "${redis}"`);
  return { transport: 'http', port, issuer, introspect, redis, ...guards };
}

/** The scopes the protected server names in its challenges and metadata. */
const SCOPES = ['mcp:read', 'mcp:write'];

/** The `auth` option for the flags, or undefined when the server is not protected. */
function authFor(mode: Extract<Mode, { transport: 'http' }>): ResourceAuthOptions | undefined {
  const resource = `http://127.0.0.1:${mode.port}/mcp`;
  if (mode.introspect !== undefined) {
    const clientId = process.env.MCPKIT_INTROSPECTION_CLIENT_ID;
    const clientSecret = process.env.MCPKIT_INTROSPECTION_CLIENT_SECRET;
    if (!clientId || !clientSecret) {
      throw new Error(
        '--auth-introspect needs MCPKIT_INTROSPECTION_CLIENT_ID and MCPKIT_INTROSPECTION_CLIENT_SECRET in the environment',
      );
    }
    const verifier = introspectionVerifier({
      endpoint: mode.introspect,
      ...(mode.issuer === undefined ? {} : { issuer: mode.issuer }),
      audience: resource,
      clientId,
      clientSecret,
    });
    return {
      verifier,
      resource,
      authorizationServers: [mode.issuer ?? new URL(mode.introspect).origin],
      scopesSupported: SCOPES,
    };
  }
  if (mode.issuer === undefined) return undefined;
  return {
    verifier: jwtVerifier({ issuer: mode.issuer, audience: resource }),
    resource,
    authorizationServers: [mode.issuer],
    scopesSupported: SCOPES,
  };
}

/** The guard options of the flags: tool calls limited per principal (the client's address without a token), the audit file. */
function guardsFor(mode: Mode, sink: JsonlAuditSink | undefined): GuardOptions {
  const guards: GuardOptions = {};
  if (mode.rateLimit !== undefined) guards.rateLimit = { methods: { 'tools/call': mode.rateLimit } };
  if (sink !== undefined) guards.audit = { sink };
  return guards;
}

async function serveStdio(server: McpServer): Promise<void> {
  await server.connect(new StdioServerTransport());
}

async function main(): Promise<number | undefined> {
  let mode: Mode;
  try {
    mode = parseMode(process.argv.slice(2));
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  let auth: ResourceAuthOptions | undefined;
  try {
    auth = mode.transport === 'http' ? authFor(mode) : undefined;
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  const sink = mode.audit === undefined ? undefined : jsonlAuditSink({ path: mode.audit });
  const requestStateKey = process.env.MCPKIT_REQUEST_STATE_KEY;
  let cluster: RedisCluster | undefined;
  if (mode.transport === 'http' && mode.redis !== undefined) {
    try {
      // Loaded only when asked: ioredis is an optional peer dependency.
      const { redisCluster } = await import('../../src/redis.js');
      cluster = await redisCluster(mode.redis);
    } catch (e) {
      console.error(`cannot reach Redis at ${mode.redis}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
  }
  const server = createEverythingServer({
    ...guardsFor(mode, sink),
    ...(requestStateKey === undefined || requestStateKey === '' ? {} : { requestStateKey }),
    ...(cluster === undefined ? {} : { tasks: { store: cluster.tasks } }),
  });
  if (cluster !== undefined) registerClusterTools(server, cluster.instanceId);
  // An MCP App: roll_dice and its ui:// document (docs/apps.md).
  registerDiceApp(server);
  // --otel: spans and metrics over OTLP/HTTP (the OTEL_* variables); mcpkit/otel and the SDK load only then.
  let otel: { shutdown(): Promise<void> } | undefined;
  if (mode.otel) {
    const { instrumentServer, startOtlpExport } = await import('../../src/otel.js');
    otel = await startOtlpExport({ serviceName: 'mcpkit-everything' });
    // Over stdio no client address tells the transport: say it.
    instrumentServer(server, mode.transport === 'stdio' ? { networkTransport: 'pipe' } : {});
    console.error(
      `mcpkit everything server: exporting spans and metrics to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318'}`,
    );
  }
  switch (mode.transport) {
    case 'stdio':
      await serveStdio(server);
      return undefined;
    case 'http': {
      const running = await serve(server, {
        port: mode.port,
        host: '127.0.0.1',
        ...(auth === undefined ? {} : { auth }),
        ...(cluster === undefined ? {} : { cluster }),
      });
      console.error(
        `mcpkit everything server: Streamable HTTP at ${running.url}, legacy HTTP+SSE at ${running.sseUrl}` +
          (auth === undefined ? '' : `, protected (tokens from ${auth.authorizationServers.join(', ')})`) +
          (cluster === undefined ? '' : `, instance ${cluster.instanceId} of a cluster on ${mode.redis}`),
      );
      const stop = () => {
        running
          .close()
          // Running tasks: those whose tool allows re-runs are released to another instance, the others fail.
          .then(() => server.close())
          .then(() => sink?.flush())
          .then(() => otel?.shutdown())
          .then(() => cluster?.close())
          .then(
            () => process.exit(0),
            () => process.exit(1),
          );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      return undefined;
    }
  }
}

main().then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`everything server: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  },
);
