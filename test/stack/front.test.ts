/** The round-robin front of `npm run stack`, in front of real HTTP servers standing in for API instances. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { test, type TestContext } from 'node:test';
import { startFront } from '../../src/stack/front.ts';
import { freePort } from '../../support/free-port.ts';

/** An upstream that answers its name, or drops the connection for the methods in `dropOn`. */
async function upstream(t: TestContext, name: string, dropOn: string[] = []): Promise<number> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (dropOn.includes(req.method ?? '')) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': name });
      res.end(`${req.method} ${req.url} at ${name}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return (server.address() as { port: number }).port;
}

async function front(t: TestContext, upstreams: number[]): Promise<string> {
  const f = await startFront({ host: '127.0.0.1', port: 0, upstreams });
  t.after(() => f.close());
  return `http://127.0.0.1:${f.port}`;
}

test('requests alternate between the instances, bodies and paths passed through', async (t) => {
  const url = await front(t, [await upstream(t, 'a'), await upstream(t, 'b')]);
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) seen.push((await fetch(`${url}/v1/x?i=${i}`)).headers.get('x-upstream')!);
  assert.deepEqual(seen, ['a', 'b', 'a', 'b']);
  const res = await fetch(`${url}/v1/payments`, {
    method: 'POST',
    body: '{"a":1}',
    headers: { 'content-type': 'application/json' },
  });
  assert.match(await res.text(), /^POST \/v1\/payments at [ab]$/);
});

test('an instance that refuses connections is skipped; reads and writes go to the other', async (t) => {
  const url = await front(t, [await freePort(), await upstream(t, 'b')]);
  for (const method of ['GET', 'POST', 'GET']) {
    const res = await fetch(`${url}/v1/x`, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-upstream'), 'b');
  }
});

test('a write whose instance fails after it was sent: 503 problem+json with Retry-After; a read goes elsewhere', async (t) => {
  const url = await front(t, [await upstream(t, 'a', ['POST', 'GET']), await upstream(t, 'b', ['POST'])]);
  const write = await fetch(`${url}/v1/payments`, { method: 'POST', body: '{}' });
  assert.equal(write.status, 503);
  assert.equal(write.headers.get('retry-after'), '1');
  assert.match(String(write.headers.get('content-type')), /^application\/problem\+json/);
  const problem = (await write.json()) as Record<string, unknown>;
  assert.equal(problem['code'], 'SERVICE_UNAVAILABLE');
  assert.equal(problem['instance'], '/v1/payments');
  const read = await fetch(`${url}/v1/orders`);
  assert.equal(read.status, 200);
  assert.equal(read.headers.get('x-upstream'), 'b');
});

test('no instance reachable: 503 problem+json at once', async (t) => {
  const url = await front(t, [await freePort(), await freePort()]);
  const res = await fetch(`${url}/health/ready`);
  assert.equal(res.status, 503);
  assert.equal(((await res.json()) as Record<string, unknown>)['code'], 'SERVICE_UNAVAILABLE');
  assert.equal(res.headers.get('retry-after'), '1');
});
