/**
 * W3C traceparent end to end: into the request's log line, through the record header (CBHDR) into the
 * back-end's log line for the transaction (over the default worker transport for a payment, the API
 * thread's read-only back-end for an inquiry), and, with OTEL_EXPORTER_OTLP_ENDPOINT, to a real OTLP/HTTP
 * receiver as a SERVER span and a back-end CLIENT span of the caller's trace.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import test from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

function traceparent(): { header: string; traceId: string; parentId: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${parentId}-01`, traceId, parentId };
}

const TRANSFER = {
  debtorAccount: '1001-01',
  creditorAccount: '1002-01',
  amount: 2.5,
  currency: 'EUR',
  reference: 'traced',
};

async function pay(h: TestApp, headers: Record<string, string>) {
  const requestId = `trace-${randomUUID()}`;
  const res = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    body: TRANSFER,
    headers: { 'idempotency-key': randomUUID(), 'x-request-id': requestId, ...headers },
  });
  assert.equal(res.statusCode, 201);
  return requestId;
}

async function balance(h: TestApp, headers: Record<string, string>) {
  const requestId = `trace-${randomUUID()}`;
  const res = await h.request({
    method: 'GET',
    url: '/v1/accounts/1001-01/balance',
    as: 'ada',
    headers: { 'x-request-id': requestId, ...headers },
  });
  assert.equal(res.statusCode, 200);
  return requestId;
}

/** The request's one line, and the back-end's line for its transaction. */
function linesOf(h: TestApp, requestId: string) {
  const request = h.logs.filter((l) => l['requestId'] === requestId && l['msg'] === 'request completed');
  const backend = h.logs.filter(
    (l) => l['requestId'] === requestId && l['component'] === 'backend' && l['msg'] === 'transaction ended',
  );
  assert.equal(request.length, 1, 'one request line');
  assert.equal(backend.length, 1, 'one back-end line (LOG_LEVEL=debug)');
  return { request: request[0]!, backend: backend[0]! };
}

test('an operation run later (Prefer: respond-async) continues the trace of the request that submitted it', async (t) => {
  const h = await startApp(t, { LOG_LEVEL: 'debug' });
  const submitted = traceparent();
  const requestId = `trace-${randomUUID()}`;
  const res = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    body: TRANSFER,
    headers: {
      prefer: 'respond-async',
      'idempotency-key': randomUUID(),
      'x-request-id': requestId,
      traceparent: submitted.header,
    },
  });
  assert.equal(res.statusCode, 202, res.body);
  // The runner claims the operation (OPNXT) and runs PAYCRT under the submitting request's header: wait for its line.
  const ran = () =>
    h.logs.find((l) => l['requestId'] === requestId && l['tran'] === 'PAYCRT' && l['msg'] === 'transaction ended');
  for (let i = 0; i < 100 && !ran(); i++) await new Promise((r) => setTimeout(r, 50));
  const line = ran();
  assert.ok(line, "the run's back-end line");
  assert.equal(line['rc'], 0);
  assert.equal(line['trace_id'], submitted.traceId);
  assert.equal(line['span_id'], submitted.parentId);
});

test("without tracing, the caller's traceparent reaches the request line and the back-end's line (worker and API-thread reads)", async (t) => {
  const h = await startApp(t, { LOG_LEVEL: 'debug' });
  assert.equal(h.app.observability.tracing, null);

  const paid = traceparent();
  const payment = linesOf(h, await pay(h, { traceparent: paid.header }));
  assert.equal(payment.backend['tran'], 'PAYCRT');
  assert.equal(payment.backend['trace_id'], paid.traceId);
  assert.equal(payment.backend['span_id'], paid.parentId);
  assert.equal(payment.request['trace_id'], paid.traceId);
  assert.equal(payment.request['span_id'], paid.parentId);

  const read = traceparent();
  const inquiry = linesOf(h, await balance(h, { traceparent: read.header }));
  assert.equal(inquiry.backend['tran'], 'ACCBAL');
  assert.equal(inquiry.backend['trace_id'], read.traceId);
  assert.equal(inquiry.request['trace_id'], read.traceId);

  // None sent, or a malformed one: the lines carry no trace, and the request is served all the same.
  for (const bad of [
    undefined,
    'not-a-traceparent',
    `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01`,
    `ff-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
    `00-${'A'.repeat(32)}-${'b'.repeat(16)}-01`,
  ]) {
    const lines = linesOf(h, await pay(h, bad === undefined ? {} : { traceparent: bad }));
    assert.equal(lines.backend['trace_id'], undefined, `back-end line for ${bad}`);
    assert.equal(lines.request['trace_id'], undefined, `request line for ${bad}`);
  }
});

test("with OTEL_EXPORTER_OTLP_ENDPOINT, a request yields a SERVER span and a back-end CLIENT span of the caller's trace", async (t) => {
  const receiver = await startOtlpReceiver(t);
  const h = await startApp(t, {
    LOG_LEVEL: 'debug',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: 'corebridge-test',
  });
  const sent = traceparent();
  const requestId = await pay(h, { traceparent: sent.header, tracestate: 'vendor=1' });
  const untraced = await balance(h, {});
  await h.app.observability.tracing!.flush();

  const server = receiver.spans.filter((s) => s.traceId === sent.traceId && s.kind === 2);
  const client = receiver.spans.filter((s) => s.traceId === sent.traceId && s.kind === 3);
  assert.equal(server.length, 1, "one SERVER span in the caller's trace");
  assert.equal(client.length, 1, "one CLIENT span in the caller's trace");
  const [request, transaction] = [server[0]!, client[0]!];
  assert.equal(request.name, 'POST /v1/payments');
  assert.equal(request.parentSpanId, sent.parentId);
  assert.equal(request.attributes['http.request.method'], 'POST');
  assert.equal(request.attributes['http.route'], '/v1/payments');
  assert.equal(request.attributes['http.response.status_code'], 201);
  assert.equal(request.resource['service.name'], 'corebridge-test');
  assert.equal(transaction.name, 'backend PAYCRT');
  assert.equal(transaction.parentSpanId, request.spanId);
  assert.equal(transaction.attributes['corebridge.transaction'], 'PAYCRT');
  assert.equal(transaction.attributes['corebridge.return_code'], 0);

  // The logs name the same spans: the request line its SERVER span, the back-end's line the CLIENT span whose context
  // the header carried.
  const lines = linesOf(h, requestId);
  assert.equal(lines.request['trace_id'], sent.traceId);
  assert.equal(lines.request['span_id'], request.spanId);
  assert.equal(lines.backend['trace_id'], sent.traceId);
  assert.equal(lines.backend['span_id'], transaction.spanId);

  // A request without a traceparent starts a trace of its own, and the back-end's line names it.
  const own = linesOf(h, untraced);
  const ownServer = receiver.spans.find((s) => s.kind === 2 && s.name === 'GET /v1/accounts/{accountId}/balance');
  assert.ok(ownServer, 'the untraced request has a SERVER span');
  assert.equal(ownServer.parentSpanId || undefined, undefined, 'a root span');
  assert.equal(own.request['trace_id'], ownServer.traceId);
  assert.equal(own.backend['trace_id'], ownServer.traceId);
});
