// The gateway's approvals belong to the connecting client: "allow for this session" holds in that client's session
// only (not for another client, not for the host's own calls) and ends with it; a client of the stateless revision
// keeps it per verified principal and client until it expires, and without a principal nothing is remembered. A tool
// that changed since it was approved becomes a fresh elicitation showing the diff, or a denial saying why.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Host } from '../../src/host.js';
import { Client, type ElicitParams, HttpClientTransport, type McpServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import type { TokenVerifier } from '../../src/server/handler/auth.js';
import { connectInMemory } from '../../src/testing.js';
import { CHANGING_SERVER, ODD_SERVER, stdioServer, text, until } from './helpers.js';

/** A token is its subject; tokens starting with "expired" carry an expiry in the past. */
const VERIFIER: TokenVerifier = {
  verify: async (token) => ({
    subject: token,
    issuer: 'https://issuer.test',
    scopes: [],
    ...(token.startsWith('expired') ? { expiresAt: 1 } : {}),
  }),
};

let host: Host;
let gateway: McpServer;
let open: RunningServer;
let authed: RunningServer;

before(async () => {
  host = new Host(
    [
      stdioServer('up', ODD_SERVER, [], { approval: { default: 'ask', tools: { echo: 'allow' } } }),
      stdioServer('changing', CHANGING_SERVER, [], {
        approval: { default: 'ask', tools: { mutate: 'allow', restore: 'allow' } },
      }),
    ],
    { refreshDebounceMs: 20 },
  );
  await host.start();
  gateway = host.toServer();
  open = await serve(gateway, { port: 0, host: '127.0.0.1' });
  authed = await serve(gateway, {
    port: 0,
    host: '127.0.0.1',
    auth: {
      verifier: VERIFIER,
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['https://issuer.test'],
    },
  });
});

after(async () => {
  await open.close();
  await authed.close();
  await host.close();
});

/** A person behind a client: answers every elicitation with `decision`, keeping what was asked. */
function person(decision: string) {
  const asked: ElicitParams[] = [];
  return {
    asked,
    elicitation: (params: ElicitParams) => {
      asked.push(params);
      return { action: 'accept' as const, content: { decision } };
    },
  };
}

/** The choices an elicitation offered. */
function choices(params: ElicitParams | undefined): unknown {
  const schema = params && 'requestedSchema' in params ? params.requestedSchema : undefined;
  return (schema?.properties as { decision?: { enum?: unknown } } | undefined)?.decision?.enum;
}

test("allow for this session holds in that client's session only, and ends with it", async () => {
  const a = person('Allow for this session');
  const { client: first } = await connectInMemory(gateway, { elicitation: a.elicitation });
  assert.equal(text(await first.callTool('up__delete_thing', {})), 'deleted');
  assert.equal(text(await first.callTool('up__delete_thing', {})), 'deleted');
  assert.equal(a.asked.length, 1, 'asked once in its session');

  const { client: other } = await connectInMemory(gateway);
  try {
    const refused = await other.callTool('up__delete_thing', {});
    assert.equal(refused.isError, true, 'another client does not inherit the approval');
    assert.match(text(refused), /cannot ask its user/);
  } finally {
    await other.close();
  }
  const own = await host.callTool('up__delete_thing', {});
  assert.match(text(own), /no one is there to approve it/, "nor do the host's own calls");

  const sessions = gateway.sessions.size;
  await first.close();
  await until(() => gateway.sessions.size < sessions, 'the session to end');
  const { client: again } = await connectInMemory(gateway, { elicitation: a.elicitation });
  try {
    assert.equal(text(await again.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(a.asked.length, 2, 'a new session is asked again');
  } finally {
    await again.close();
  }
});

test('a stateless client on a connection of its own (in memory, as the inspector): for that connection only', async () => {
  const a = person('Allow for this session');
  const { client } = await connectInMemory(gateway, { era: 'stateless', elicitation: a.elicitation });
  assert.equal(client.era, 'stateless');
  assert.equal(text(await client.callTool('up__delete_thing', {})), 'deleted');
  assert.equal(text(await client.callTool('up__delete_thing', {})), 'deleted');
  assert.equal(a.asked.length, 1);
  const b = person('Allow once');
  const { client: other } = await connectInMemory(gateway, { era: 'stateless', elicitation: b.elicitation });
  try {
    assert.equal(text(await other.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(b.asked.length, 1, 'another connection is asked');
  } finally {
    await other.close();
  }
  await client.close();
});

async function modern(url: string, elicitation: ReturnType<typeof person>, token?: string, name = 'modern') {
  const client = new Client(
    { name, version: '1.0.0' },
    { era: 'stateless', elicitation: elicitation.elicitation },
  );
  await client.connect(
    new HttpClientTransport(
      url,
      token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
    ),
  );
  assert.equal(client.era, 'stateless');
  return client;
}

test('stateless: kept per verified principal and client, until it expires; without a principal never', async () => {
  const alice = person('Allow for this session');
  const a = await modern(authed.url, alice, 'alice');
  try {
    assert.equal(text(await a.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(text(await a.callTool('up__delete_thing', {})), 'deleted');
    assert.equal(alice.asked.length, 1);
    assert.ok((choices(alice.asked[0]) as string[]).includes('Allow for this session'));
  } finally {
    await a.close();
  }
  for (const [token, name] of [
    ['bob', 'modern'],
    ['alice', 'another-app'],
  ] as const) {
    const other = person('Allow once');
    const client = await modern(authed.url, other, token, name);
    try {
      assert.equal(text(await client.callTool('up__delete_thing', {})), 'deleted');
      assert.equal(other.asked.length, 1, `${token} with ${name} is asked`);
    } finally {
      await client.close();
    }
  }
  const late = person('Allow for this session');
  const expired = await modern(authed.url, late, 'expired-carol');
  try {
    await expired.callTool('up__delete_thing', {});
    await expired.callTool('up__delete_thing', {});
    assert.equal(late.asked.length, 2, "past the token's expiry nothing is kept");
  } finally {
    await expired.close();
  }
  const anonymous = person('Allow once');
  const nobody = await modern(open.url, anonymous);
  try {
    await nobody.callTool('up__delete_thing', {});
    await nobody.callTool('up__delete_thing', {});
    assert.equal(anonymous.asked.length, 2, 'no principal: asked every time');
    // Its client checks the answer against the choices: "for this session" cannot even be given.
    assert.deepEqual(
      choices(anonymous.asked[0]),
      ['Allow once', 'Deny'],
      'and "for this session" is not offered',
    );
  } finally {
    await nobody.close();
  }
});

test('a tool changed since approved: a fresh elicitation with the diff, or a denial saying why', async () => {
  const a = person('Allow for this session');
  const { client } = await connectInMemory(gateway, { elicitation: a.elicitation });
  const { client: mute } = await connectInMemory(gateway);
  try {
    assert.equal(text(await client.callTool('changing__echo', { text: 'x' })), 'echo: x');
    assert.equal(a.asked.length, 1);
    assert.doesNotMatch(a.asked[0]?.message ?? '', /changed/);
    assert.equal(text(await client.callTool('changing__mutate', {})), 'mutated');
    await until(() => host.toolChange('changing__echo') !== undefined, 'the changed echo');

    const refused = await mute.callTool('changing__echo', { text: 'y', note: 'n' });
    assert.equal(refused.isError, true);
    assert.match(
      text(refused),
      /its definition changed since it was approved, and the connecting client cannot ask its user to approve the new one \(it does not support elicitation\) \(changed: description, inputSchema\)/,
    );

    assert.equal(text(await client.callTool('changing__echo', { text: 'y', note: 'n' })), 'echo: y');
    assert.equal(a.asked.length, 2, 'its session approval of the old definition does not hold');
    const message = a.asked[1]?.message ?? '';
    assert.match(
      message,
      /changing__echo \(server changing\) changed since it was approved \(description, inputSchema\)/,
    );
    assert.match(message, /^- {3}"description": "Echoes text",$/m);
    assert.match(message, /^\+ {7}"note": \{$/m);
    assert.equal(text(await client.callTool('changing__echo', { text: 'z', note: 'n' })), 'echo: z');
    assert.equal(a.asked.length, 2, 'the new definition allowed for the session');

    // A stateless client meets the same change (restored, then changed again) as an input request with the diff.
    assert.equal(text(await client.callTool('changing__restore', {})), 'restored');
    await until(() => host.toolChange('changing__echo') !== undefined, 'the restored echo, a change again');
    const b = person('Allow once');
    const stateless = await modern(open.url, b);
    try {
      assert.equal(text(await stateless.callTool('changing__echo', { text: 'w' })), 'echo: w');
      assert.match(b.asked[0]?.message ?? '', /^\+ {3}"description": "Echoes text",$/m);
    } finally {
      await stateless.close();
    }
  } finally {
    await client.close();
    await mute.close();
  }
});
