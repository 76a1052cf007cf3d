/**
 * The back-end service over TCP + mutual TLS and the API's TLS transport (issue 11, part 1): who may
 * connect, many calls per connection, time limits, reconnect, round-robin, and a back-end that cannot
 * handle a call. Everything real: TLS 1.3 on loopback, certificates made at run time, the worker back-end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import { pino } from 'pino';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { RC, readHeader, writeMessage } from '../../src/backend/message.ts';
import { DEV_API_CLIENT_NAME } from '../../src/tls/dev-files.ts';
import { createCertificateAuthority } from '../../src/tls/dev-pki.ts';
import { openTlsTransport } from '../../src/transport/tcp/client.ts';
import { encodeFrame, FRAME_KIND, FrameReader, MAX_FRAME_BYTES } from '../../src/transport/tcp/frames.ts';
import { serveBackend } from '../../src/transport/tcp/server.ts';
import {
  CallNotStartedError,
  TransportError,
  TransportTimeoutError,
  type Transport,
} from '../../src/transport/transport.ts';
import { openWorkerTransport } from '../../src/transport/worker.ts';
import { connectTls, startBackendService, startTlsPeer, testPki } from '../helpers/backend-service.ts';

const catalog = loadMessageCatalog();

function balanceRequest(correlationId: string, account = '1002-01'): Buffer {
  return writeMessage(
    catalog,
    {
      tranCode: 'ACCBAL',
      correlationId,
      principal: 'clerk',
      role: 'AGENT',
      customerId: '',
      idempotencyKey: '',
      returnCode: 0,
      reasonCode: '',
      reasonText: '',
      traceparent: '',
    },
    catalog.request('ACCBAL'),
    { acckAccountId: account },
  );
}

function storeFile(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-tcp-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'backend.sqlite');
}

/** A log destination the test can read. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { log, lines };
}

/** Counts the calls that reach the back-end runtime behind a listener. */
function counting(inner: Transport): Transport & { calls: number } {
  const wrapped = {
    calls: 0,
    call: (message: Buffer, options?: { signal?: AbortSignal }) => {
      wrapped.calls++;
      return inner.call(message, options);
    },
    ready: () => inner.ready(),
    close: () => inner.close(),
  };
  return wrapped;
}

async function worker(t: TestContext): Promise<Transport> {
  const transport = await openWorkerTransport({
    file: storeFile(t),
    logLevel: 'silent',
    logger: pino({ level: 'silent' }),
  });
  t.after(() => transport.close());
  return transport;
}

/** Connects with raw TLS and collects what the service sends until it closes the connection (or `frameCount` came). */
async function rawSession(
  port: number,
  credentials: { cert?: string; key?: string },
  send?: Buffer,
  frameCount = Infinity,
) {
  const pki = await testPki();
  return new Promise<{
    frames: Array<{ kind: number; callId: number; payload: string }>;
    error: NodeJS.ErrnoException | null;
  }>((resolve) => {
    const reader = new FrameReader();
    const frames: Array<{ kind: number; callId: number; payload: string }> = [];
    let error: NodeJS.ErrnoException | null = null;
    const socket: TLSSocket = connect(
      { host: '127.0.0.1', port, ca: pki.ca.cert, minVersion: 'TLSv1.3', ...credentials },
      () => {
        socket.write(send ?? encodeFrame(FRAME_KIND.CALL, 7, balanceRequest('raw')));
      },
    );
    socket.on('data', (chunk: Buffer) => {
      frames.push(
        ...reader.push(chunk).map((f) => ({ kind: f.kind, callId: f.callId, payload: f.payload.toString('latin1') })),
      );
      if (frames.length >= frameCount) socket.end();
    });
    socket.on('error', (e) => (error = e));
    socket.on('close', () => resolve({ frames, error }));
  });
}

test('a client with the allowed certificate gets its answers; the answers carry the call ids it chose', async (t) => {
  const pki = await testPki();
  const running = await startBackendService(t, { file: storeFile(t) });
  const { frames } = await rawSession(
    running.service.port,
    { cert: pki.api.cert, key: pki.api.key },
    Buffer.concat([
      encodeFrame(FRAME_KIND.CALL, 41, balanceRequest('a')),
      encodeFrame(FRAME_KIND.CALL, 42, balanceRequest('b', '1001-01')),
      encodeFrame(FRAME_KIND.PING, 43),
    ]),
    3,
  );
  const replies = frames.filter((f) => f.kind === FRAME_KIND.REPLY);
  assert.equal(replies.length, 2);
  const byCorrelation = new Map(
    replies.map((r) => [readHeader(catalog, Buffer.from(r.payload, 'latin1')).header.correlationId, r]),
  );
  assert.deepEqual([...byCorrelation.keys()].sort(), ['a', 'b']);
  assert.equal(byCorrelation.get('a')!.callId, 41);
  assert.equal(byCorrelation.get('b')!.callId, 42);
  assert.equal(
    catalog.response('ACCBAL').decode(readHeader(catalog, Buffer.from(byCorrelation.get('b')!.payload, 'latin1')).body)[
      'accbAccountId'
    ],
    '1001-01',
  );
  assert.deepEqual(
    frames.filter((f) => f.kind === FRAME_KIND.PONG).map((f) => [f.callId, f.payload]),
    [[43, '\u0001']],
  );
});

test('refused: no client certificate, one from another CA, and one whose name is not allowed; none reaches the back-end', async (t) => {
  const pki = await testPki();
  const { log, lines } = capture();
  const inner = counting(await worker(t));
  const running = await startBackendService(t, { inner, log });

  const none = await rawSession(running.service.port, {});
  assert.deepEqual(none.frames, []);
  assert.match(String(none.error?.code), /CERTIFICATE_REQUIRED/);

  const foreign = await rawSession(running.service.port, { cert: pki.foreign.cert, key: pki.foreign.key });
  assert.deepEqual(foreign.frames, []);
  // Both ended in the handshake, before anything was read.
  assert.equal(lines.filter((l) => l['msg'] === 'TLS handshake refused').length, 2);

  const intruder = await rawSession(running.service.port, { cert: pki.intruder.cert, key: pki.intruder.key });
  assert.deepEqual(
    intruder.frames.map((f) => f.kind),
    [FRAME_KIND.REFUSED],
  );
  assert.match(intruder.frames[0]!.payload, /certificate CN=intruder \(no SAN DNS or URI name\) is not allowed/);
  const refusal = lines.find(
    (l) => l['msg'] === 'back-end client refused: its certificate is not on BACKEND_ALLOWED_CLIENTS',
  );
  assert.deepEqual(refusal?.['certificate'], []);
  assert.equal(refusal?.['subject'], 'intruder');

  // The API's transport with those certificates: calls fail as TransportError (503), readiness is false.
  for (const client of [pki.foreign, pki.intruder]) {
    const transport = await connectTls(t, [running.url], { client, connectionsPerBackend: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await assert.rejects(transport.call(balanceRequest('refused')), TransportError);
    assert.equal(await transport.ready(), false);
  }
  assert.equal(inner.calls, 0);
});

test('a frame longer than any message disconnects that client only', async (t) => {
  const pki = await testPki();
  const running = await startBackendService(t, { file: storeFile(t) });
  const good = await connectTls(t, [running.url], { connectionsPerBackend: 1 });
  assert.equal(await good.connected(5000), true);
  const huge = Buffer.alloc(4);
  huge.writeUInt32BE(MAX_FRAME_BYTES + 1);
  const { frames } = await rawSession(running.service.port, { cert: pki.api.cert, key: pki.api.key }, huge);
  assert.deepEqual(frames, []);
  assert.equal(readHeader(catalog, await good.call(balanceRequest('still'))).header.returnCode, RC.OK);
});

test('a back-end that does not answer in time: TransportTimeoutError, and the late answer is not given to another call', async (t) => {
  // A peer that answers each call after `delays[n]` ms, in the order the calls came.
  const delays = [400, 0];
  const url = await startTlsPeer(t, (frame, socket) => {
    setTimeout(() => socket.write(encodeFrame(FRAME_KIND.REPLY, frame.callId, frame.payload)), delays.shift() ?? 0);
  });
  const transport = await connectTls(t, [url], { connectionsPerBackend: 1, callTimeoutMs: 150 });
  assert.equal(await transport.connected(5000), true);
  await assert.rejects(
    transport.call(balanceRequest('slow')),
    (error: unknown) => error instanceof TransportTimeoutError && /did not answer within 150 ms/.test(error.message),
  );
  const echoed = await transport.call(balanceRequest('quick'));
  assert.equal(readHeader(catalog, echoed).header.correlationId, 'quick');
  // The slow one's answer arrives now and is dropped: the next call still gets its own.
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(readHeader(catalog, await transport.call(balanceRequest('after'))).header.correlationId, 'after');
});

test('a back-end that goes away: calls fail at once as TransportError, and the connection comes back when it returns', async (t) => {
  const inner = await worker(t);
  const { log, lines } = capture();
  const first = await startBackendService(t, { inner });
  const transport = await connectTls(t, [first.url], { log });
  assert.equal(await transport.connected(5000), true);
  assert.equal(readHeader(catalog, await transport.call(balanceRequest('before'))).header.returnCode, RC.OK);

  await first.service.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  await assert.rejects(
    transport.call(balanceRequest('during')),
    (error: unknown) => error instanceof TransportError && /no back-end is reachable/.test(error.message),
  );
  assert.equal(await transport.ready(), false);

  await startBackendService(t, { inner, port: first.service.port });
  assert.equal(await transport.connected(10_000), true);
  assert.equal(readHeader(catalog, await transport.call(balanceRequest('after'))).header.returnCode, RC.OK);
  assert.equal(await transport.ready(), true);
  const messages = lines.map((l) => l['msg']);
  assert.ok(messages.includes('back-end connection closed; reconnecting'));
  assert.ok(messages.includes('back-end connection restored'));
});

test('several back-ends: calls alternate between them; one that cannot handle a call passes it to the other', async (t) => {
  const shared = await worker(t);
  const a = counting(shared);
  const b = counting(shared);
  const serviceA = await startBackendService(t, { inner: a });
  const serviceB = await startBackendService(t, { inner: b });
  const transport = await connectTls(t, [serviceA.url, serviceB.url], { connectionsPerBackend: 1 });
  while ((await Promise.all([transport.connected(5000), transport.ready()])).includes(false))
    await new Promise((r) => setTimeout(r, 20));
  // Both connections up before counting (connected() is true once the first is).
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let i = 0; i < 20; i++)
    assert.equal(readHeader(catalog, await transport.call(balanceRequest(`rr-${i}`))).header.returnCode, RC.OK);
  assert.equal(a.calls, 10);
  assert.equal(b.calls, 10);

  // C's runtime is down (its worker closed): C answers NOT_STARTED without running the call, D runs it, and
  // the next calls avoid C for a while.
  const broken = await openWorkerTransport({
    file: storeFile(t),
    logLevel: 'silent',
    logger: pino({ level: 'silent' }),
  });
  await broken.close();
  const c = counting(broken);
  const serviceC = await startBackendService(t, { inner: c });
  const d = counting(shared);
  const serviceD = await startBackendService(t, { inner: d });
  const failover = await connectTls(t, [serviceC.url, serviceD.url], { connectionsPerBackend: 1 });
  await failover.connected(5000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let i = 0; i < 6; i++)
    assert.equal(readHeader(catalog, await failover.call(balanceRequest(`fo-${i}`))).header.returnCode, RC.OK);
  assert.equal(d.calls, 6);
  assert.equal(c.calls, 1);

  // With C alone, nothing can take the call over.
  const alone = await connectTls(t, [serviceC.url], { connectionsPerBackend: 1 });
  await alone.connected(5000);
  await assert.rejects(
    alone.call(balanceRequest('alone')),
    (error: unknown) => error instanceof TransportError && /could not handle the call/.test(error.message),
  );
});

test("a call the back-end's runtime held when it died is not sent again: its outcome is unknown, the client gets TransportError", async (t) => {
  const shared = await worker(t);
  // What a worker transport answers for the calls it held when its thread died (src/transport/worker.ts).
  const dying: Transport = {
    call: async () => {
      throw new TransportError('back-end worker stopped');
    },
    ready: async () => true,
    close: async () => {},
  };
  const c = counting(dying);
  const d = counting(shared);
  const serviceC = await startBackendService(t, { inner: c });
  const serviceD = await startBackendService(t, { inner: d });
  const transport = await connectTls(t, [serviceC.url, serviceD.url], { connectionsPerBackend: 1 });
  await transport.connected(5000);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const outcomes = await Promise.allSettled([1, 2].map((i) => transport.call(balanceRequest(`held-${i}`))));
  // One went to C and failed there, without a second try on D; the other went to D.
  assert.equal(c.calls, 1);
  assert.equal(d.calls, 1);
  const failed = outcomes.filter((o) => o.status === 'rejected');
  assert.equal(failed.length, 1);
  const reason = (failed[0] as PromiseRejectedResult).reason as Error;
  assert.ok(reason instanceof TransportError && !(reason instanceof CallNotStartedError));
  assert.match(reason.message, /stopped during the call/);
});

test('rotation: with the old and the new CA in one BACKEND_TLS_CA, certificates from either are accepted on both sides', async (t) => {
  const pki = await testPki();
  const next = await createCertificateAuthority({ commonName: 'Next CA', days: 1 });
  const bundle = next.cert + pki.ca.cert;
  const newClient = await next.issue({
    commonName: DEV_API_CLIENT_NAME,
    usage: 'client',
    dnsNames: [DEV_API_CLIENT_NAME],
    days: 1,
  });
  const inner = await worker(t);
  // The service already trusts both CAs, still with its certificate from the old one; the API moved to the new one.
  const service = await serveBackend(inner, {
    host: '127.0.0.1',
    port: 0,
    cert: pki.backend.cert,
    key: pki.backend.key,
    ca: bundle,
    allowedClients: new Set([DEV_API_CLIENT_NAME]),
    apiClients: new Set([DEV_API_CLIENT_NAME]),
    catalog: loadMessageCatalog(),
    log: pino({ level: 'silent' }),
  });
  t.after(() => service.close());
  const transport = openTlsTransport({
    urls: [`tls://127.0.0.1:${service.port}`],
    ca: bundle,
    cert: newClient.cert,
    key: newClient.key,
    connectionsPerBackend: 1,
    callTimeoutMs: 5000,
    log: pino({ level: 'silent' }),
  });
  t.after(() => transport.close());
  assert.equal(await transport.connected(5000), true);
  assert.equal(readHeader(catalog, await transport.call(balanceRequest('rotated'))).header.returnCode, RC.OK);
});
