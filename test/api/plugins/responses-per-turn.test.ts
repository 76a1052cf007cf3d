/**
 * Responses written together at the end of the event-loop turn (src/api/plugins/responses-per-turn.ts): each
 * reaches its own client with its own body and headers, also when many arrive at once, and one that cannot
 * be written does not hold up the others of its turn.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installResponsesPerTurn } from '../../../src/api/plugins/responses-per-turn.ts';

async function listen(t: TestContext, routes: (app: FastifyInstance) => void): Promise<string> {
  const app = Fastify();
  installResponsesPerTurn(app);
  routes(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  t.after(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

test('concurrent requests each get their own answer, with the headers of hooks that run after the plugin', async (t) => {
  const base = await listen(t, (app) => {
    app.addHook('onSend', (req, reply, payload, done) => {
      reply.header('x-echo', (req.params as { n: string }).n);
      done(null, payload);
    });
    app.get('/echo/:n', async (req) => ({ n: Number((req.params as { n: string }).n) }));
  });
  const answers = await Promise.all(
    Array.from({ length: 40 }, async (_, n) => {
      const res = await fetch(`${base}/echo/${n}`);
      return { n, status: res.status, echo: res.headers.get('x-echo'), body: (await res.json()) as { n: number } };
    }),
  );
  for (const { n, status, echo, body } of answers) {
    assert.equal(status, 200);
    assert.equal(echo, String(n));
    assert.deepEqual(body, { n });
  }
});

test('a response that cannot be written is a 500, and the others of its turn are still answered', async (t) => {
  const base = await listen(t, (app) => {
    app.get('/bad', async (_req, reply) => {
      reply.header('x-bad', 'line\nbreak');
      return { ok: false };
    });
    app.get('/good', async () => ({ ok: true }));
  });
  const answers = await Promise.all(
    ['/good', '/bad', '/good', '/bad', '/good'].map(async (path) => {
      const res = await fetch(base + path);
      return { path, status: res.status, body: (await res.json()) as Record<string, unknown> };
    }),
  );
  for (const { path, status, body } of answers) {
    if (path === '/good') {
      assert.equal(status, 200);
      assert.deepEqual(body, { ok: true });
    } else {
      assert.equal(status, 500);
      assert.equal(body['code'], 'ERR_INVALID_CHAR');
    }
  }
});
