// Raw protocol, no client library: the dual-era server (a real stdio process) against the rules of the
// stateless revision 2026-07-28 — the _meta envelope, unsupported versions, missing client capabilities,
// requestState integrity (tampered, expired, replayed on another request), removed methods, per-request log
// level, and both eras served side by side in one process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/types.js';
import { META } from '../../src/spec/modern.js';
import { DEFAULT_HINT, DUAL_INFO, DUAL_INSTRUCTIONS } from './fixtures/dual-server.js';
import { DUAL_STDIO_MAIN, envelope, Pids, type RawReply, RawStdio, SUITE_TIMEOUT, sleep } from './helpers.js';

const FULL_CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} };
const pids = new Pids();

after(() => pids.killAll());

/** A modern tools/call of `interact` (or another tool) with `capabilities` and extra params. */
function call(
  name: string,
  args: JsonObject,
  caps: JsonObject = FULL_CAPS,
  extra: JsonObject = {},
): JsonObject {
  return { name, arguments: args, _meta: envelope(caps), ...extra };
}

function assertError(reply: RawReply, code: number, message?: RegExp): void {
  assert.ok(reply.error, `expected error ${code}, got ${JSON.stringify(reply)}`);
  assert.equal(reply.error.code, code, JSON.stringify(reply.error));
  if (message) assert.match(reply.error.message, message);
}

describe('stateless rules over raw stdio', { timeout: SUITE_TIMEOUT }, () => {
  let raw: RawStdio;

  before(() => {
    raw = new RawStdio(DUAL_STDIO_MAIN, pids);
  });
  after(async () => {
    await raw.stop();
  });

  test('server/discover: versions, capabilities, instructions, cache hints, resultType, serverInfo', async () => {
    const reply = await raw.request('server/discover', { _meta: envelope() });
    const r = reply.result;
    assert.ok(r.supportedVersions.includes('2026-07-28'));
    assert.ok(r.capabilities.tools);
    assert.equal(r.instructions, DUAL_INSTRUCTIONS);
    assert.equal(r.resultType, 'complete');
    assert.equal(r.ttlMs, DEFAULT_HINT.ttlMs);
    assert.equal(r.cacheScope, DEFAULT_HINT.cacheScope);
    assert.deepEqual(r._meta[META.serverInfo], DUAL_INFO);
    assert.equal(r.serverInfo, undefined, 'identity lives in _meta only');
  });

  test('missing or malformed _meta fields: -32602', async () => {
    const noCaps = await raw.request('tools/list', {
      _meta: { [META.protocolVersion]: '2026-07-28', [META.clientInfo]: { name: 'x', version: '1' } },
    });
    assertError(noCaps, ErrorCode.InvalidParams, /clientCapabilities/);
    const badCaps = await raw.request('tools/list', { _meta: envelope([] as unknown as JsonObject) });
    assertError(badCaps, ErrorCode.InvalidParams);
    const badVersionType = await raw.request('tools/list', {
      _meta: { ...envelope(), [META.protocolVersion]: 20260728 },
    });
    assertError(badVersionType, ErrorCode.InvalidParams);
    const badLevel = await raw.request('tools/list', { _meta: envelope({}, { [META.logLevel]: 'loud' }) });
    assertError(badLevel, ErrorCode.InvalidParams, /logLevel/);
  });

  test('unsupported protocol version: -32022 with supported and requested', async () => {
    for (const version of ['2099-01-01', '2025-11-25']) {
      const reply = await raw.request('tools/list', {
        _meta: { ...envelope(), [META.protocolVersion]: version },
      });
      assertError(reply, ErrorCode.UnsupportedProtocolVersion);
      assert.equal(reply.error?.data?.requested, version);
      assert.ok(reply.error?.data?.supported.includes('2026-07-28'));
    }
  });

  test('methods the stateless revision removed: -32601', async () => {
    for (const method of [
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
      'initialize',
    ]) {
      const reply = await raw.request(method, {
        _meta: envelope(),
        level: 'info',
        uri: 'eras://static',
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      });
      assertError(reply, ErrorCode.MethodNotFound);
    }
    assertError(await raw.request('nope/nothing', { _meta: envelope() }), ErrorCode.MethodNotFound);
  });

  test('a missing client capability for elicitation, sampling or roots: -32021 with requiredCapabilities', async () => {
    const noElicitation = await raw.request(
      'tools/call',
      call('interact', { topic: 't' }, { sampling: {}, roots: {} }),
    );
    assertError(noElicitation, ErrorCode.MissingClientCapability);
    assert.ok(
      noElicitation.error?.data?.requiredCapabilities?.elicitation,
      JSON.stringify(noElicitation.error),
    );

    // Elicitation declared and answered: the sampling step is next, and sampling is not declared.
    const first = await raw.request('tools/call', call('interact', { topic: 't' }, { elicitation: {} }));
    assert.equal(first.result?.resultType, 'input_required');
    const [key] = Object.keys(first.result.inputRequests);
    const noSampling = await raw.request(
      'tools/call',
      call(
        'interact',
        { topic: 't' },
        { elicitation: {} },
        {
          requestState: first.result.requestState,
          inputResponses: { [key as string]: { action: 'accept', content: { name: 'Ada' } } },
        },
      ),
    );
    assertError(noSampling, ErrorCode.MissingClientCapability);
    assert.deepEqual(noSampling.error?.data?.requiredCapabilities, { sampling: {} });
  });

  test('capabilities are per request: a retry that no longer declares elicitation is refused', async () => {
    const first = await raw.request('tools/call', call('interact', { topic: 'caps' }));
    assert.equal(first.result?.resultType, 'input_required');
    const [key] = Object.keys(first.result.inputRequests);
    const retry = await raw.request(
      'tools/call',
      call(
        'interact',
        { topic: 'caps' },
        {},
        {
          requestState: first.result.requestState,
          inputResponses: { [key as string]: { action: 'accept', content: { name: 'Ada' } } },
        },
      ),
    );
    assertError(retry, ErrorCode.MissingClientCapability);
  });

  test('explicit MRTR style (inputRequired) must not ask a client that did not declare elicitation: -32021', async () => {
    const reply = await raw.request('tools/call', call('confirm', { action: 'x' }, {}));
    assertError(reply, ErrorCode.MissingClientCapability);
    assert.ok(reply.error?.data?.requiredCapabilities?.elicitation);
  });

  test('an MRTR round trip: input_required, then the retry with answers and requestState completes', async () => {
    let params = call('interact', { topic: 'rounds' });
    const methods: string[] = [];
    for (let round = 0; round < 5; round++) {
      const reply = await raw.request('tools/call', params);
      assert.ok(reply.result, JSON.stringify(reply));
      if (reply.result.resultType === 'complete') {
        assert.deepEqual(reply.result.structuredContent, {
          action: 'accept',
          name: 'Ada',
          sampled: 'S',
          roots: ['file:///r'],
        });
        assert.deepEqual(methods, ['elicitation/create', 'sampling/createMessage', 'roots/list']);
        return;
      }
      assert.equal(reply.result.resultType, 'input_required');
      assert.equal(typeof reply.result.requestState, 'string');
      assert.deepEqual(reply.result._meta[META.serverInfo], DUAL_INFO);
      assert.equal(reply.result.ttlMs, undefined);
      const answers: JsonObject = {};
      for (const [key, req] of Object.entries(
        reply.result.inputRequests as Record<string, { method: string }>,
      )) {
        methods.push(req.method);
        answers[key] =
          req.method === 'elicitation/create'
            ? { action: 'accept', content: { name: 'Ada' } }
            : req.method === 'sampling/createMessage'
              ? { role: 'assistant', content: { type: 'text', text: 'S' }, model: 'm' }
              : { roots: [{ uri: 'file:///r' }] };
      }
      params = call('interact', { topic: 'rounds' }, FULL_CAPS, {
        requestState: reply.result.requestState,
        inputResponses: answers,
      });
    }
    assert.fail('no complete result within 5 rounds');
  });

  test('a retry without the answers gets input_required again (not an error); unknown keys are ignored', async () => {
    const first = await raw.request('tools/call', call('interact', { topic: 'again' }));
    assert.equal(first.result?.resultType, 'input_required');
    const again = await raw.request(
      'tools/call',
      call('interact', { topic: 'again' }, FULL_CAPS, {
        requestState: first.result.requestState,
        inputResponses: { unrelated: { action: 'cancel' } },
      }),
    );
    assert.equal(again.result?.resultType, 'input_required', JSON.stringify(again));
    assert.deepEqual(Object.keys(again.result.inputRequests), Object.keys(first.result.inputRequests));
  });

  test('answers to inputs the server did not ask for in the last round are ignored, even well-formed ones', async () => {
    // Offered ahead of any question (no requestState): the first round still asks.
    const eager = await raw.request(
      'tools/call',
      call('interact', { topic: 'eager' }, FULL_CAPS, {
        inputResponses: { 'input-1': { action: 'accept', content: { name: 'Eve' } } },
      }),
    );
    assert.equal(eager.result?.resultType, 'input_required', JSON.stringify(eager));
    const asked = Object.keys(eager.result.inputRequests);
    // A later question's key answered early, next to the real answer: only the asked key is taken.
    const next = `input-${asked.length + 1}`;
    const reply = await raw.request(
      'tools/call',
      call('interact', { topic: 'eager' }, FULL_CAPS, {
        requestState: eager.result.requestState,
        inputResponses: {
          [asked[0] as string]: { action: 'accept', content: { name: 'Ada' } },
          [next]: { role: 'assistant', content: { type: 'text', text: 'forged' }, model: 'm' },
        },
      }),
    );
    assert.equal(reply.result?.resultType, 'input_required', JSON.stringify(reply));
    assert.ok(
      next in reply.result.inputRequests,
      'the early answer was not used: the server asks for it now',
    );
  });

  test('tampered requestState: -32602 "Invalid or expired requestState"', async () => {
    const first = await raw.request('tools/call', call('interact', { topic: 'tamper' }));
    const state = first.result.requestState as string;
    const [key] = Object.keys(first.result.inputRequests);
    const answers = { [key as string]: { action: 'accept', content: { name: 'Ada' } } };
    const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
    for (const forged of [flip(state, 3), flip(state, state.length - 2), `${state}x`, 'garbage', '']) {
      const reply = await raw.request(
        'tools/call',
        call('interact', { topic: 'tamper' }, FULL_CAPS, { requestState: forged, inputResponses: answers }),
      );
      assertError(reply, ErrorCode.InvalidParams, /^Invalid or expired requestState$/);
    }
    const wrongType = await raw.request(
      'tools/call',
      call('interact', { topic: 'tamper' }, FULL_CAPS, { requestState: 42, inputResponses: answers }),
    );
    assertError(wrongType, ErrorCode.InvalidParams, /requestState/);
    // The untouched state still works, so the refusals above are about the tampering.
    const ok = await raw.request(
      'tools/call',
      call('interact', { topic: 'tamper' }, FULL_CAPS, { requestState: state, inputResponses: answers }),
    );
    assert.equal(ok.result?.resultType, 'input_required', JSON.stringify(ok));
    assert.deepEqual(
      Object.values(ok.result.inputRequests).map((r) => (r as { method: string }).method),
      ['sampling/createMessage'],
    );
  });

  test('requestState from a different request (other arguments, other tool, other method) is refused', async () => {
    const first = await raw.request('tools/call', call('interact', { topic: 'original' }));
    const state = first.result.requestState as string;
    const [key] = Object.keys(first.result.inputRequests);
    const inputResponses = { [key as string]: { action: 'accept', content: { name: 'Ada' } } };
    const otherArgs = await raw.request(
      'tools/call',
      call('interact', { topic: 'other' }, FULL_CAPS, { requestState: state, inputResponses }),
    );
    assertError(otherArgs, ErrorCode.InvalidParams, /^Invalid or expired requestState$/);
    const otherTool = await raw.request(
      'tools/call',
      call('confirm', { action: 'original' }, FULL_CAPS, { requestState: state, inputResponses }),
    );
    assertError(otherTool, ErrorCode.InvalidParams, /^Invalid or expired requestState$/);
    const otherMethod = await raw.request('prompts/get', {
      name: 'introduce',
      _meta: envelope(FULL_CAPS),
      requestState: state,
      inputResponses,
    });
    assertError(otherMethod, ErrorCode.InvalidParams, /^Invalid or expired requestState$/);
  });

  test('logLevel is per request: none → no notifications/message; "error" → only errors', async () => {
    const countLogs = () =>
      raw.messages.filter((m) => 'method' in m && m.method === 'notifications/message').length;
    const before = countLogs();
    const quiet = await raw.request('tools/call', call('progress_log', {}));
    assert.equal(quiet.result?.resultType, 'complete');
    assert.equal(countLogs(), before, 'no logLevel: no log messages');
    const loud = await raw.request('tools/call', {
      name: 'progress_log',
      arguments: {},
      _meta: envelope({}, { [META.logLevel]: 'error' }),
    });
    assert.equal(loud.result?.resultType, 'complete');
    const logs = raw.messages
      .filter((m) => 'method' in m && m.method === 'notifications/message')
      .slice(before);
    assert.deepEqual(
      logs.map((m) => (m as { params?: JsonObject }).params?.level),
      ['error'],
    );
    // And the next request without a level is quiet again: the server does not remember it.
    await raw.request('tools/call', call('progress_log', {}));
    assert.equal(countLogs(), before + 1);
  });

  test('progress notifications only with a progressToken, and only on the request that asked', async () => {
    const progress = () => raw.messages.filter((m) => 'method' in m && m.method === 'notifications/progress');
    const before = progress().length;
    await raw.request('tools/call', call('progress_log', {}));
    assert.equal(progress().length, before);
    const reply = await raw.request('tools/call', {
      name: 'progress_log',
      arguments: {},
      _meta: envelope({}, { progressToken: 'tok-1' }),
    });
    const mine = progress().slice(before);
    const responseAt = raw.messages.findIndex((m) => !('method' in m) && m.id === reply.id);
    assert.ok(
      mine.every((m) => raw.messages.indexOf(m) < responseAt),
      'every progress notification is written before the response',
    );
    assert.deepEqual(
      mine.map((m) => (m as { params?: JsonObject }).params?.progress),
      [1, 2, 3],
    );
    assert.ok(mine.every((m) => (m as { params?: JsonObject }).params?.progressToken === 'tok-1'));
  });

  test('resources/read of an unknown resource: -32602 with the uri, never -32002', async () => {
    const reply = await raw.request('resources/read', { uri: 'eras://nowhere', _meta: envelope() });
    assertError(reply, ErrorCode.InvalidParams);
    assert.deepEqual(reply.error?.data, { uri: 'eras://nowhere' });
  });

  test('subscriptions/listen: ack first (honoured subset), tagged notifications, cancelled by notifications/cancelled', async () => {
    const id = 'listen-1';
    raw.write({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        _meta: envelope(),
        notifications: { toolsListChanged: true, resourceSubscriptions: ['eras://counter'], bogus: true },
      },
    });
    const tagged = (m: { params?: JsonObject }) =>
      (m.params?._meta as JsonObject | undefined)?.[META.subscriptionId] === id;
    const ack = (await raw.waitFor(
      (m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged' && tagged(m),
      'the acknowledgement',
    )) as { params: JsonObject };
    assert.deepEqual(ack.params.notifications, {
      toolsListChanged: true,
      resourceSubscriptions: ['eras://counter'],
    });
    // A second subscription that opted only into prompt list changes: it must hear nothing below.
    raw.write({
      jsonrpc: '2.0',
      id: 'listen-2',
      method: 'subscriptions/listen',
      params: { _meta: envelope(), notifications: { promptsListChanged: true } },
    });
    const other = (m: { params?: JsonObject }) =>
      (m.params?._meta as JsonObject | undefined)?.[META.subscriptionId] === 'listen-2';
    await raw.waitFor(
      (m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged' && other(m),
      'the second acknowledgement',
    );
    const from = raw.messages.length;
    await raw.request('tools/call', call('touch', { uri: 'eras://counter' }));
    await raw.request('tools/call', call('touch', { uri: 'eras://static' }));
    await raw.request('tools/call', call('toggle', { visible: false }));
    await raw.request('tools/call', call('toggle', { visible: true }));
    await raw.waitFor(
      (m) =>
        raw.messages.indexOf(m) >= from && 'method' in m && m.method === 'notifications/tools/list_changed',
      'list_changed on the stream',
    );
    await sleep(50);
    const onStream = raw.messages
      .slice(from)
      .filter((m) => 'method' in m && tagged(m as { params?: JsonObject }));
    const updates = onStream.filter((m) => 'method' in m && m.method === 'notifications/resources/updated');
    assert.deepEqual(
      updates.map((m) => (m as { params?: JsonObject }).params?.uri),
      ['eras://counter'],
      'only the subscribed uri',
    );
    assert.equal(
      onStream.filter((m) => 'method' in m && m.method === 'notifications/tools/list_changed').length,
      2,
    );
    assert.equal(
      raw.messages
        .slice(from)
        .filter((m) => 'method' in m && m.method === 'notifications/prompts/list_changed').length,
      0,
    );
    assert.deepEqual(
      raw.messages.slice(from).filter((m) => 'method' in m && other(m as { params?: JsonObject })),
      [],
      'a subscription hears only the types it opted into',
    );
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-2' } });
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    await raw.request('tools/call', call('touch', { uri: 'eras://counter' }));
    await sleep(50);
    const after = raw.messages
      .slice(from)
      .filter((m) => 'method' in m && tagged(m as { params?: JsonObject }));
    assert.equal(after.length, onStream.length, 'nothing more on a cancelled subscription');
    assert.equal(
      raw.messages.filter((m) => !('method' in m) && m.id === id).length,
      0,
      'a cancelled listen gets no response',
    );
  });

  test('a change right after the acknowledgement reaches the new subscription (no gap between ack and registration)', async () => {
    for (let round = 0; round < 20; round++) {
      const id = `race-${round}`;
      raw.write({
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { _meta: envelope(), notifications: { resourceSubscriptions: ['eras://counter'] } },
      });
      const mine = (m: { params?: JsonObject }) =>
        (m.params?._meta as JsonObject | undefined)?.[META.subscriptionId] === id;
      await raw.waitFor(
        (m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged' && mine(m),
        `the ack of ${id}`,
      );
      // The change is requested the moment the ack is read.
      raw.write({
        jsonrpc: '2.0',
        id: `touch-${round}`,
        method: 'tools/call',
        params: call('touch', { uri: 'eras://counter' }),
      });
      await raw.waitFor(
        (m) => 'method' in m && m.method === 'notifications/resources/updated' && mine(m),
        `the update on ${id}`,
      );
      raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    }
  });

  test('both eras in one process: an initialize session and stateless requests side by side', async () => {
    const init = await raw.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'legacy', version: '1' },
    });
    assert.equal(init.result?.protocolVersion, '2025-11-25');
    assert.deepEqual(init.result?.serverInfo, DUAL_INFO);
    raw.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const legacy = await raw.request('tools/call', { name: 'echo', arguments: { text: 'old' } });
    assert.equal(legacy.result?.resultType, undefined);
    assert.equal(legacy.result?.content?.[0]?.text, 'echo: old');
    const modern = await raw.request('tools/call', call('echo', { text: 'new' }));
    assert.equal(modern.result?.resultType, 'complete');
    assert.equal(modern.result?.content?.[0]?.text, 'echo: new');
    const legacyMissing = await raw.request('resources/read', { uri: 'eras://nowhere' });
    assertError(legacyMissing, ErrorCode.ResourceNotFound);
    const modernMissing = await raw.request('resources/read', { uri: 'eras://nowhere', _meta: envelope() });
    assertError(modernMissing, ErrorCode.InvalidParams);
    assert.equal((await raw.request('ping')).result !== undefined, true, 'ping still works in the session');
  });
});

describe('an expired requestState is refused', { timeout: SUITE_TIMEOUT }, () => {
  let raw: RawStdio;
  before(() => {
    raw = new RawStdio(DUAL_STDIO_MAIN, pids, { ERAS_STATE_TTL_MS: '400' });
  });
  after(async () => {
    await raw.stop();
  });

  test('requestStateTtlMs 400: a prompt retry works, a late one gets -32602', async () => {
    const args = { topic: 'expiry' };
    const first = await raw.request('tools/call', call('interact', args));
    const [key] = Object.keys(first.result.inputRequests);
    const inputResponses = { [key as string]: { action: 'accept', content: { name: 'Ada' } } };
    const fresh = await raw.request(
      'tools/call',
      call('interact', args, FULL_CAPS, { requestState: first.result.requestState, inputResponses }),
    );
    assert.equal(fresh.result?.resultType, 'input_required', 'within the ttl the state is accepted');
    await sleep(600);
    const late = await raw.request(
      'tools/call',
      call('interact', args, FULL_CAPS, { requestState: first.result.requestState, inputResponses }),
    );
    assertError(late, ErrorCode.InvalidParams, /^Invalid or expired requestState$/);
  });
});
