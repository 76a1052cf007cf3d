/**
 * The stack's front: HAProxy run with the configuration `npm run stack` generates, in front of real HTTP
 * servers standing in for API instances (each records what reached it).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { findHaproxy, writeHaproxyFiles } from '../../scripts/stack/haproxy.ts';
import { ApiError, toProblem } from '../../src/errors.ts';
import { until } from '../../src/until.ts';
import { accepts, freePort } from '../../support/free-port.ts';

const HAPROXY = findHaproxy(process.env['PATH']);
const version = HAPROXY ? spawnSync(HAPROXY, ['-v'], { encoding: 'utf8' }).stdout : '';
const [major = 0, minor = 0] = (/version (\d+)\.(\d+)/.exec(version)?.slice(1) ?? []).map(Number);
/** What HAProxy refuses before a request exists gets its error files from 3.3 on, its built-in HTML page before. */
const EARLY_ERROR_FILES = major > 3 || (major === 3 && minor >= 3);

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

interface Instance {
  port: number;
  /** Requests that reached it, health checks left out. */
  seen: Seen[];
  /** What /health/ready answers. */
  ready: number;
}

/**
 * An instance that answers its name; for a method in `dropOn` it closes the connection once the request has
 * arrived, as an instance killed while running it would.
 */
async function instance(t: TestContext, name: string, dropOn: string[] = []): Promise<Instance> {
  const state: Instance = { port: 0, seen: [], ready: 200 };
  const server: Server = createServer((req, res) => {
    if (req.url === '/health/ready') return void res.writeHead(state.ready).end();
    state.seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    if (req.url === '/stream') {
      // Answers at the first chunk of the body: only a proxy that streams lets the client see it.
      req.once('data', () => res.writeHead(200, { 'x-instance': name }).end('first chunk arrived'));
      return;
    }
    if (req.url === '/program-failed') {
      res.writeHead(502, { 'content-type': 'application/problem+json', 'x-instance': name });
      return void res.end('{"code":"BACKEND_PROGRAM_FAILED"}');
    }
    if (req.url === '/stream-answer') {
      // The first chunk of an answer that never ends: only a proxy that streams passes it on.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first chunk of the answer');
      return;
    }
    // An instance sees a request cut short by HAProxy as an aborted one.
    req.on('error', () => {});
    req.resume();
    req.on('end', () => {
      if (dropOn.includes(req.method!)) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/plain', 'x-instance': name });
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
  state.port = (server.address() as { port: number }).port;
  return state;
}

/** HAProxy with the stack's configuration over `ports`; its URL. */
async function front(t: TestContext, ports: number[]): Promise<string> {
  const haproxy = HAPROXY;
  assert.ok(haproxy, 'haproxy is not on PATH (Debian package haproxy)');
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-haproxy-'));
  const port = await freePort();
  const file = writeHaproxyFiles(dir, { host: '127.0.0.1', port, apis: ports, requestTimeoutMs: 5000 });
  let log = '';
  const child = spawn(haproxy, ['-W', '-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  t.after(async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  await until(
    'haproxy listening',
    () => {
      if (child.exitCode !== null) throw new Error(`haproxy exited: ${log}`);
      return accepts(port);
    },
    10_000,
    20,
  );
  return `http://127.0.0.1:${port}`;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request from a given local address, each on its own connection. */
function send(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

test('requests alternate between the instances; each sees the client address in X-Forwarded-For', async (t) => {
  const a = await instance(t, 'a');
  const b = await instance(t, 'b');
  const url = await front(t, [a.port, b.port]);
  const seen: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await send(`${url}/v1/x?i=${i}`, { localAddress: '127.0.0.2' });
    assert.equal(res.status, 200);
    seen.push(String(res.headers['x-instance']));
  }
  assert.deepEqual([...seen].sort(), ['a', 'a', 'b', 'b']);
  assert.notEqual(seen[0], seen[1]);
  for (const s of [...a.seen, ...b.seen]) assert.equal(s.headers['x-forwarded-for'], '127.0.0.2');

  // A header the client sent itself stays first; HAProxy's, last, is the one the API trusts from loopback.
  const posted = await send(`${url}/v1/payments`, {
    method: 'POST',
    body: '{"a":1}',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
    localAddress: '127.0.0.3',
  });
  assert.match(posted.body, /^POST \/v1\/payments at [ab]$/);
  const last = [...a.seen, ...b.seen].find((s) => s.method === 'POST')!;
  assert.equal(last.headers['x-forwarded-for'], '203.0.113.9, 127.0.0.3');
});

test('bodies are streamed both ways, not buffered whole', async (t) => {
  const a = await instance(t, 'a');
  const url = await front(t, [a.port]);
  const answer = await new Promise<string>((resolve, reject) => {
    const req = request(`${url}/stream`, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        req.destroy();
        resolve(body);
      });
    });
    req.on('error', reject);
    // The rest of the body is never sent: the answer can only come from the first chunk.
    req.write('{"first":');
  });
  assert.equal(answer, 'first chunk arrived');

  const first = await new Promise<string>((resolve, reject) => {
    const req = request(`${url}/stream-answer`, (res) => {
      res.setEncoding('utf8');
      res.once('data', (chunk: string) => {
        req.destroy();
        resolve(chunk);
      });
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(first, 'first chunk of the answer');
});

test('a write whose instance dies after receiving it is not sent again: 503 problem+json with Retry-After', async (t) => {
  const a = await instance(t, 'a', ['POST', 'GET']);
  const b = await instance(t, 'b', ['POST', 'GET']);
  const url = await front(t, [a.port, b.port]);
  const write = await send(`${url}/v1/payments`, {
    method: 'POST',
    body: '{}',
    headers: { 'x-request-id': 'pay-1' },
  });
  assert.equal(write.status, 503);
  assert.equal(write.headers['retry-after'], '1');
  assert.match(String(write.headers['content-type']), /^application\/problem\+json/);
  const problem = JSON.parse(write.body) as Record<string, unknown>;
  assert.equal(problem['code'], 'SERVICE_UNAVAILABLE');
  assert.equal(problem['status'], 503);
  assert.equal(problem['instance'], '/v1/payments');
  assert.equal(problem['requestId'], 'pay-1');
  assert.equal(write.headers['x-request-id'], 'pay-1');
  // It reached one instance, once.
  assert.equal([...a.seen, ...b.seen].filter((s) => s.method === 'POST').length, 1);
});

test('a read whose instance dies is tried on the other', async (t) => {
  const a = await instance(t, 'a', ['GET']);
  const b = await instance(t, 'b');
  const url = await front(t, [a.port, b.port]);
  for (let i = 0; i < 3; i++) {
    const read = await send(`${url}/v1/orders?i=${i}`);
    assert.equal(read.status, 200);
    assert.equal(read.headers['x-instance'], 'b');
  }
  assert.ok(a.seen.length >= 1, 'the failing instance was tried');
});

test('an instance whose /health/ready fails gets no requests until it is ready again', async (t) => {
  const a = await instance(t, 'a');
  const b = await instance(t, 'b');
  const url = await front(t, [a.port, b.port]);
  const fourFrom = async (name: string) => {
    for (let i = 0; i < 4; i++) if ((await send(`${url}/v1/orders`)).headers['x-instance'] !== name) return false;
    return true;
  };
  b.ready = 503;
  await until('b taken out after failed health checks', () => fourFrom('a'), 15_000, 200);
  const before = b.seen.length;
  assert.ok(await fourFrom('a'));
  assert.equal(b.seen.length, before, 'no request reached the instance that is not ready');
  b.ready = 200;
  await until('b back once ready', async () => (await send(`${url}/v1/orders`)).headers['x-instance'] === 'b', 15_000);
});

test("an instance's own 502 answer reaches the client as it is, and is not retried", async (t) => {
  const a = await instance(t, 'a');
  const b = await instance(t, 'b');
  const url = await front(t, [a.port, b.port]);
  const res = await send(`${url}/program-failed`);
  assert.equal(res.status, 502);
  assert.equal(res.body, '{"code":"BACKEND_PROGRAM_FAILED"}');
  assert.equal(a.seen.length + b.seen.length, 1);
});

test('no instance reachable: 503 problem+json with Retry-After at once, for reads and writes', async (t) => {
  const url = await front(t, [await freePort(), await freePort()]);
  for (const method of ['GET', 'POST']) {
    const res = await send(`${url}/health/ready`, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '1');
    assert.equal((JSON.parse(res.body) as Record<string, unknown>)['code'], 'SERVICE_UNAVAILABLE');
  }
});

/** Bytes written to the front as they are (`steps` between them); HAProxy's whole answer once it closes. */
function raw(url: string, steps: (socket: Socket) => Promise<void>): Promise<Answer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), '127.0.0.1', () => steps(socket).catch(reject));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(
        fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

test("no instance reachable: the whole 503 answer is the API's problem+json, naming the path and request", async (t) => {
  const url = await front(t, [await freePort()]);
  const res = await send(`${url}/v1/orders?page=2`, { headers: { 'x-request-id': 'none-up-1' } });
  assert.equal(res.status, 503);
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.equal(res.headers['retry-after'], '1');
  assert.equal(res.headers['x-request-id'], 'none-up-1');
  assert.deepEqual(JSON.parse(res.body), toProblem(new ApiError('SERVICE_UNAVAILABLE'), '/v1/orders', 'none-up-1'));
});

test("a request HAProxy cannot read: 400, the API's MALFORMED_REQUEST problem+json", async (t) => {
  const a = await instance(t, 'a');
  const url = await front(t, [a.port]);
  // HAProxy 3.3 on answers a request line it cannot parse from its error files; older ones use them only once
  // the request has reached an instance (a broken chunked body), where newer ones close without an answer.
  const res = EARLY_ERROR_FILES
    ? await raw(url, async (socket) => void socket.write('GET /v1/a b c HTTP/1.1\r\nhost: x\r\n\r\n'))
    : await raw(url, async (socket) => {
        socket.write('POST /v1/payments HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n');
        await until('the request at the instance', () => a.seen.length === 1);
        socket.write('not-a-chunk-size\r\n');
      });
  assert.equal(res.status, 400);
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.deepEqual(
    JSON.parse(res.body),
    toProblem(new ApiError('MALFORMED_REQUEST', 'the request could not be read'), '', ''),
  );
});
