// `ctx.closeStream()` with the OFFICIAL SDK v2 client (`@modelcontextprotocol/client` 2.4.0) against our dual-era
// server's `poll` tool (it closes its stream, then answers): the client gets the answer in every era and on every
// endpoint. A 2025-11-25 session with an event store polls back (GET + Last-Event-ID, SSE polling); a stream that
// cannot resume (2026-07-28, an endpoint without sessions, one without an event store, a session of a revision before
// SSE polling, stdio) is left open, since closing it would lose the answer (the v2 client would wait for its
// timeout). The short call timeout makes a lost answer fail fast.
import assert from 'node:assert/strict';
import process from 'node:process';
import { after, describe, test } from 'node:test';
import { StreamableHTTPClientTransport, Client as V2Client } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type RunningServer, type ServeOptions, serve } from '../../src/node.js';
import { createDualServer } from '../eras/fixtures/dual-server.js';
import { DUAL_STDIO_MAIN, firstText, Pids, SUITE_TIMEOUT } from '../eras/helpers.js';

/** The call: far above a local round trip plus one 50 ms poll, far below the v2 client's 60 s default. */
const CALL = { timeout: 5_000 } as const;
/** Connecting (a process to start over stdio) may take longer on a loaded machine. */
const CONNECT = { timeout: 30_000 } as const;
const ANSWER = 'answered after closeStream';
const pids = new Pids();
const running: RunningServer[] = [];
after(async () => {
  await Promise.all(running.map((r) => r.close()));
  pids.killAll();
});

interface Era {
  mode: 'auto' | 'legacy';
  version: string;
  /** The client offers only this stateful revision. */
  only?: boolean;
}
const eras: Era[] = [
  { mode: 'auto', version: '2026-07-28' },
  { mode: 'legacy', version: '2025-11-25' },
];
/** Revisions before SSE polling: their clients get no id to resume from, and their servers SHOULD NOT close. */
const older: Era[] = [
  { mode: 'legacy', version: '2025-06-18', only: true },
  { mode: 'legacy', version: '2025-03-26', only: true },
];

function v2Client({ mode, version, only }: Era): V2Client {
  return new V2Client(
    { name: 'v2-close-stream', version: '2.4.0' },
    { versionNegotiation: { mode }, ...(only ? { supportedProtocolVersions: [version] } : {}) },
  );
}

/** A fetch that records each HTTP request's method and `Last-Event-ID` (a GET with one is a poll back). */
function recordingFetch(polls: string[]): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    const last = headers.get('last-event-id');
    if ((init?.method ?? 'GET') === 'GET' && last !== null) polls.push(last);
    return fetch(input, init);
  };
}

const endpoints: { label: string; options: ServeOptions; resumable: boolean }[] = [
  { label: 'sessions and an event store (the default)', options: {}, resumable: true },
  { label: 'sessions: false', options: { sessions: false }, resumable: false },
  { label: 'eventStore: false', options: { eventStore: false }, resumable: false },
  { label: "responseMode: 'sse'", options: { responseMode: 'sse' }, resumable: true },
];

for (const { label, options, resumable } of endpoints) {
  describe(`ctx.closeStream() over HTTP, ${label}`, { timeout: SUITE_TIMEOUT }, () => {
    for (const era of resumable ? [...eras, ...older] : eras) {
      const { version } = era;
      const polls = resumable && version === '2025-11-25';
      test(`${version}: the v2 client gets the answer${polls ? ' by polling back' : '; the stream stays open'}`, async () => {
        const server = await serve(createDualServer().server, { retryMs: 50, ...options });
        running.push(server);
        const seen: string[] = [];
        const client = v2Client(era);
        try {
          const transport = new StreamableHTTPClientTransport(new URL(server.url), {
            fetch: recordingFetch(seen),
          });
          await client.connect(transport, CONNECT);
          assert.equal(client.getNegotiatedProtocolVersion(), version);
          const result = await client.callTool({ name: 'poll', arguments: {} }, CALL);
          assert.equal(firstText(result), ANSWER);
          if (polls) assert.ok(seen.length > 0, 'the client resumed the closed stream with Last-Event-ID');
          else assert.deepEqual(seen, [], 'nothing to resume: the connection was not closed');
        } finally {
          await client.close();
        }
      });
    }
  });
}

describe('ctx.closeStream() over stdio (no streams: a no-op)', { timeout: SUITE_TIMEOUT }, () => {
  for (const era of eras) {
    const { version } = era;
    test(`${version}: the v2 client gets the answer`, async () => {
      const client = v2Client(era);
      const transport = new V2StdioClientTransport({
        command: process.execPath,
        args: [DUAL_STDIO_MAIN],
        stderr: 'ignore',
      });
      try {
        try {
          await client.connect(transport, CONNECT);
        } finally {
          pids.add(transport.pid);
        }
        assert.equal(client.getNegotiatedProtocolVersion(), version);
        const result = await client.callTool({ name: 'poll', arguments: {} }, CALL);
        assert.equal(firstText(result), ANSWER);
      } finally {
        await client.close();
      }
    });
  }
});
