import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyReader } from './body-deadline.js';
import type { BodyReading, HttpReply, HttpRequestLike } from './http.js';

/** A request whose body arrives when the test says (`arrive`), through the callback read the node adapter has. */
function pending(): { req: HttpRequestLike; arrive(text: string): void } {
  let reading: BodyReading | undefined;
  const req: HttpRequestLike = {
    method: 'POST',
    path: '/mcp',
    query: new URLSearchParams(),
    header: () => undefined,
    text: () => Promise.reject(new Error('read through readText')),
    readText: (_limit, r) => {
      reading = r;
    },
  };
  return { req, arrive: (text) => reading?.done(text) };
}

const statusOf = (body: string | HttpReply) => (typeof body === 'string' ? body : body.status);

test('bodies that arrive first, last or in between are answered; the others get 408 at their deadline', async () => {
  const reader = new BodyReader(1024, 40);
  // The reader's sweeper does not hold the process open (unref'd): this does, while the test waits for it.
  const hold = setInterval(() => undefined, 1000);
  try {
    for (const arriving of [[0], [2], [1], [0, 2], []]) {
      const bodies = [pending(), pending(), pending()];
      const answers = bodies.map((b) =>
        reader.readThen(b.req, (_a: undefined, body) => statusOf(body), undefined),
      );
      for (const i of arriving) bodies[i]?.arrive(`body ${i}`);
      const got = await Promise.all(answers);
      assert.deepEqual(
        got,
        [0, 1, 2].map((i) => (arriving.includes(i) ? `body ${i}` : 408)),
        `arriving: ${arriving.join(',')}`,
      );
      // A body that arrives after its 408 is dropped.
      for (const b of bodies) b.arrive('late');
    }
  } finally {
    clearInterval(hold);
  }
});

test('a body past the size limit is 413; what follows a body may throw and rejects the promise', async () => {
  const reader = new BodyReader(4, 0);
  const big = pending();
  const over = reader.readThen(big.req, (_a: undefined, body) => statusOf(body), undefined);
  big.arrive('x');
  assert.equal(await over, 'x');
  const request: HttpRequestLike = { ...pending().req, readText: (_l, r) => r.done(undefined) };
  assert.equal(await reader.readThen(request, (_a: undefined, body) => statusOf(body), undefined), 413);
  const thrown = reader.readThen(
    { ...request, readText: (_l, r) => r.done('ok') },
    () => {
      throw new Error('boom');
    },
    undefined,
  );
  await assert.rejects(thrown, /boom/);
});

test('a body arriving after its 408 is not answered again, and bodies still awaited keep their deadline', async () => {
  const reader = new BodyReader(1024, 40);
  const hold = setInterval(() => undefined, 1000);
  try {
    let answered = 0;
    const late = pending();
    const count = (_a: undefined, body: string | HttpReply) => {
      answered++;
      return statusOf(body);
    };
    assert.equal(await reader.readThen(late.req, count, undefined), 408);
    const waiting = pending();
    const next = reader.readThen(waiting.req, count, undefined);
    late.arrive('late');
    assert.equal(answered, 1, 'the late body is dropped');
    assert.equal(await next, 408);
    assert.equal(answered, 2);
  } finally {
    clearInterval(hold);
  }
});
