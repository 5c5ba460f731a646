// Approvals through the host: allow / deny / ask per server and tool, annotations only for trusted servers, allow
// once / for the session / deny (with a reason), a callback that throws, and the activity log with its JSONL file.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ApprovalDecision, type ApprovalRequest, Host } from '../../src/host.js';
import { oddServer, tempDir, text } from './helpers.js';

const dir = tempDir('mcpkit-host-approval-');
const asked: ApprovalRequest[] = [];
let answers: (ApprovalDecision | { decision: ApprovalDecision; reason?: string } | Error)[] = [];
let host: Host;

before(async () => {
  host = new Host(
    [
      oddServer('trusted', [], { trusted: true }),
      oddServer('untrusted'),
      oddServer('strict', [], { approval: { default: 'deny', tools: { echo: 'allow' } } }),
    ],
    {
      approve: (request) => {
        asked.push(request);
        const answer = answers.shift() ?? 'deny';
        if (answer instanceof Error) throw answer;
        return answer;
      },
      log: { file: { path: join(dir, 'activity.jsonl'), maxBytes: 4096, keep: 2 } },
    },
  );
  await host.start();
});

after(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a trusted server: readOnlyHint runs without asking, destructiveHint asks', async () => {
  asked.length = 0;
  assert.equal(text(await host.callTool('trusted__read_thing', {})), 'read');
  assert.equal(asked.length, 0);
  answers = ['allow-once'];
  assert.equal(text(await host.callTool('trusted__delete_thing', {})), 'deleted');
  assert.equal(asked.length, 1);
  assert.equal(asked[0]?.tool, 'delete_thing');
  assert.equal(asked[0]?.trusted, true);
  assert.deepEqual(asked[0]?.annotations, { destructiveHint: true });
});

test('an untrusted server: its annotations decide nothing, the default (ask) applies', async () => {
  asked.length = 0;
  answers = ['deny'];
  const result = await host.callTool('untrusted__read_thing', { token: 'abc', q: 'x' });
  assert.equal(result.isError, true);
  assert.match(text(result), /the user denied it/);
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0]?.arguments, { token: 'abc', q: 'x' }, 'the person sees the real arguments');
});

test('allow once asks again next time; allow for the session does not', async () => {
  asked.length = 0;
  answers = ['allow-once', 'allow-session'];
  assert.equal(text(await host.callTool('untrusted__echo', { text: '1' })), 'untrusted: 1');
  assert.equal(text(await host.callTool('untrusted__echo', { text: '2' })), 'untrusted: 2');
  assert.equal(text(await host.callTool('untrusted__echo', { text: '3' })), 'untrusted: 3');
  assert.equal(asked.length, 2);
  const approvals = host.log.entries().filter((e) => e.kind === 'approval' && e.name === 'untrusted__echo');
  assert.deepEqual(
    approvals.map((e) => e.approval),
    ['once', 'for-session', 'session'],
  );
});

test('a denial with a reason, and a callback that throws, are tool results', async () => {
  answers = [{ decision: 'deny', reason: 'not on Fridays' }, new Error('dialog crashed')];
  const denied = await host.callTool('untrusted__delete_thing', {});
  assert.equal(denied.isError, true);
  assert.match(text(denied), /not on Fridays/);
  const failed = await host.callTool('untrusted__delete_thing', {});
  assert.equal(failed.isError, true);
  assert.match(text(failed), /asking for approval failed \(dialog crashed\)/);
});

test('per-tool policy over the server default: echo allowed, the rest denied without asking', async () => {
  asked.length = 0;
  assert.equal(text(await host.callTool('strict__echo', { text: 'ok' })), 'strict: ok');
  const denied = await host.callTool('strict__read_thing', {});
  assert.match(text(denied), /approval policy denies/);
  assert.equal(asked.length, 0);
});

test('the activity log: secrets redacted, JSONL on disk, rotated by size', async () => {
  const entry = host.log.entries().find((e) => e.kind === 'approval' && e.name === 'untrusted__read_thing');
  assert.deepEqual(entry?.arguments, { token: '[redacted]', q: 'x' });
  for (let i = 0; i < 40; i++) await host.callTool('strict__echo', { text: `Bearer abcdefgh${i}` });
  await host.log.flush();
  const current = readFileSync(join(dir, 'activity.jsonl'), 'utf8');
  const rotated = readFileSync(join(dir, 'activity.jsonl.1'), 'utf8');
  assert.ok(current.length <= 4096 && rotated.length <= 4096, 'each file stays under maxBytes');
  for (const line of `${rotated}${current}`.trim().split('\n')) {
    const parsed = JSON.parse(line) as { id: number; arguments?: unknown };
    assert.ok(parsed.id > 0);
    assert.doesNotMatch(line, /Bearer abcdefgh/);
  }
});
