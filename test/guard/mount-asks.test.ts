// A mounted server's guards apply to the requests its handlers make of the client (sampling, elicitation), inside
// the guards of the server it is mounted in, as its middleware does: its audit records them, its limits on them
// refuse, and a request the parent's own limit refuses never reaches the child's hook. Both eras in memory (the
// limits on client requests are per stateful session), and through a mount of a mount.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AuditRecord } from '../../src/server/guard/audit.js';
import { McpServer, type ServerOptions } from '../../src/server/server.js';
import { handlers } from '../tasks/fixture.js';
import { addAskTool, collect, ERAS, memoryClient } from './helpers.js';

function child(options: ServerOptions): McpServer {
  const s = new McpServer({ name: 'child', version: '1' }, options);
  addAskTool(s);
  return s;
}

const asked = (records: AuditRecord[]) =>
  records
    .filter((r) => r.kind === 'sampling' || r.kind === 'elicitation')
    .map((r) => `${r.kind} ${r.outcome}`);

describe("a mounted server's guards on its handlers' requests of the client", { timeout: 60_000 }, () => {
  for (const era of ERAS) {
    test(`${era}: the child's audit records its handler's sampling and elicitation, as the parent's does`, async () => {
      const parentAudit = collect();
      const childAudit = collect();
      const app = new McpServer({ name: 'app', version: '1' }, { audit: { sink: parentAudit.sink } });
      app.mount('kid', child({ audit: { sink: childAudit.sink } }));
      const seen = { elicitations: 0, samplings: 0 };
      const client = await memoryClient(app, era, undefined, handlers(seen));
      try {
        const result = await client.callTool('kid_ask');
        assert.equal(result.isError, undefined, JSON.stringify(result));
        assert.equal(seen.samplings, 1);
        const mine = asked(childAudit.records);
        assert.ok(mine.includes('sampling ok') && mine.includes('elicitation ok'), mine.join(', '));
        assert.deepEqual(mine, asked(parentAudit.records), 'the same requests, seen by both');
        // The child's records name the request as the parent's do (one request, one context).
        const sampled = childAudit.records.find((r) => r.kind === 'sampling' && r.outcome === 'ok');
        const outer = parentAudit.records.find((r) => r.kind === 'sampling' && r.outcome === 'ok');
        assert.equal(sampled?.requestId, outer?.requestId);
      } finally {
        await client.close();
      }
    });
  }

  test("the child's limit on sampling refuses inside the parent's audit, which records the refusal", async () => {
    const parentAudit = collect();
    const app = new McpServer({ name: 'app', version: '1' }, { audit: { sink: parentAudit.sink } });
    app.mount('kid', child({ rateLimit: { clientRequests: { sampling: '1/h' } } }));
    const seen = { elicitations: 0, samplings: 0 };
    const client = await memoryClient(app, 'stateful', undefined, handlers(seen));
    try {
      assert.equal((await client.callTool('kid_ask')).isError, undefined);
      const second = await client.callTool('kid_ask');
      assert.equal(second.isError, true);
      assert.match(JSON.stringify(second.content), /sampling\/createMessage is over its rate limit/);
      assert.equal(seen.samplings, 1, 'the refused sampling request never reached the client');
      const sampling = parentAudit.records.filter((r) => r.kind === 'sampling');
      assert.deepEqual(
        sampling.map((r) => r.outcome),
        ['ok', 'rate_limited'],
      );
    } finally {
      await client.close();
    }
  });

  test("the parent's hook is outside the child's: what the parent's limit refuses, the child's audit never sees", async () => {
    const childAudit = collect();
    const app = new McpServer(
      { name: 'app', version: '1' },
      { rateLimit: { clientRequests: { sampling: '1/h' } } },
    );
    app.mount('kid', child({ audit: { sink: childAudit.sink } }));
    const seen = { elicitations: 0, samplings: 0 };
    const client = await memoryClient(app, 'stateful', undefined, handlers(seen));
    try {
      assert.equal((await client.callTool('kid_ask')).isError, undefined);
      assert.equal((await client.callTool('kid_ask')).isError, true);
      assert.equal(seen.samplings, 1);
      assert.deepEqual(
        childAudit.records.filter((r) => r.kind === 'sampling').map((r) => r.outcome),
        ['ok'],
      );
    } finally {
      await client.close();
    }
  });

  test('through a mount of a mount, each server on the way applies its own, outermost first', async () => {
    const order: string[] = [];
    const sink = (label: string) => (r: AuditRecord) => {
      if (r.kind === 'sampling') order.push(`${label} ${r.outcome}`);
    };
    const middle = new McpServer({ name: 'middle', version: '1' }, { audit: { sink: sink('middle') } });
    middle.mount('kid', child({ audit: { sink: sink('child') } }));
    const app = new McpServer({ name: 'app', version: '1' }, { audit: { sink: sink('app') } });
    app.mount('mid', middle);
    const seen = { elicitations: 0, samplings: 0 };
    const client = await memoryClient(app, 'stateful', undefined, handlers(seen));
    try {
      assert.equal((await client.callTool('mid_kid_ask')).isError, undefined);
      // A record is written when its request ends: the innermost hook's first.
      assert.deepEqual(order, ['child ok', 'middle ok', 'app ok']);
      // The same tool called again only adds one record per server (a hook is added to a request once).
      order.length = 0;
      await client.callTool('mid_kid_ask');
      assert.deepEqual(order, ['child ok', 'middle ok', 'app ok']);
    } finally {
      await client.close();
    }
  });
});
