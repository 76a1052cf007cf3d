import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { pino, type LoggerOptions } from 'pino';
import { redactionOptions } from '../../../src/logging/redaction.ts';
import { writeRequestLine, type RequestLine } from '../../../src/api/logging/request-line.ts';

/** A logger as src/logger.ts makes one (redaction, base, a fixed time), writing into `lines`. */
function loggerInto(lines: string[], extra: LoggerOptions = {}) {
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return pino(
    {
      level: 'info',
      base: { service: 'corebridge' },
      timestamp: () => ',"time":"2026-11-24T10:00:00.000Z"',
      ...redactionOptions(),
      ...extra,
    },
    sink,
  );
}

const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

const LINES: RequestLine[] = [
  {
    method: 'GET',
    url: '/v1/orders/ORD-1',
    route: '/v1/orders/:orderId',
    status: 200,
    ms: 2.87,
    principal: 'clerk',
    client: '203.0.113.7',
    code: undefined,
    backend: { tran: 'ORDINQ', rc: 0, reason: undefined, ms: 0.01 },
    trace_id: undefined,
    span_id: undefined,
  },
  {
    method: 'POST',
    url: `/v1/orders?access_token=${jwt}&q="quoted"\\é\u2028`,
    route: undefined,
    status: 422,
    ms: Number.NaN,
    principal: 'ada "the" admin',
    code: 'VALIDATION_FAILED',
    backend: { tran: 'PAYCRT', rc: null, reason: 'NSF', ms: 1.5 },
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    span_id: '00f067aa0ba902b7',
  },
  {
    method: 'GET',
    url: '/health/ready',
    route: '/health/ready',
    status: 503,
    ms: 0,
    principal: undefined,
    code: 'OVERLOADED',
    backend: undefined,
    trace_id: undefined,
    span_id: undefined,
  },
];

test('the request line is the line pino writes for the same fields: same bytes, same redaction', () => {
  for (const line of LINES) {
    const ours: string[] = [];
    const pinos: string[] = [];
    const level = line.status >= 500 ? 'error' : 'info';
    const msg = level === 'error' ? 'request failed' : 'request completed';
    writeRequestLine(loggerInto(ours).child({ requestId: 'req-1' }), level, msg, line);
    loggerInto(pinos)
      .child({ requestId: 'req-1' })
      [level]({ ...line }, msg);
    assert.equal(ours.length, 1);
    assert.equal(ours[0], pinos[0]);
  }
  const parsed = (() => {
    const out: string[] = [];
    writeRequestLine(loggerInto(out).child({ requestId: 'req-2' }), 'info', 'request completed', LINES[1]!);
    return JSON.parse(out[0]!) as Record<string, unknown>;
  })();
  assert.equal(parsed['url'], '/v1/orders?access_token=[redacted]&q="quoted"\\é\u2028');
  assert.deepEqual(parsed['backend'], { tran: 'PAYCRT', rc: null, reason: 'NSF', ms: 1.5 });
  assert.equal(parsed['ms'], null);
  assert.equal(parsed['requestId'], 'req-2');
  assert.equal(parsed['level'], 30);
});

test('a disabled level writes nothing; a logger with a mixin gets the line through pino', () => {
  const none: string[] = [];
  writeRequestLine(loggerInto(none, { level: 'warn' }), 'info', 'request completed', LINES[0]!);
  assert.deepEqual(none, []);

  const mixed: string[] = [];
  writeRequestLine(loggerInto(mixed, { mixin: () => ({ region: 'eu' }) }), 'info', 'request completed', LINES[0]!);
  const line = JSON.parse(mixed[0]!) as Record<string, unknown>;
  assert.deepEqual([line['region'], line['route'], line['msg']], ['eu', '/v1/orders/:orderId', 'request completed']);
});

test('durations are written as pino writes them: every hundredth up to 300 s, and values that are not hundredths', () => {
  const values = [1 / 3, 1.005, -1, -0.25, Number.POSITIVE_INFINITY, 1e12 + 0.5, 0.1 + 0.2, 5e-324];
  for (let h = 0; h <= 30_000; h++) values.push(h / 100);
  const ours: string[] = [];
  const pinos: string[] = [];
  const mine = loggerInto(ours);
  const theirs = loggerInto(pinos);
  for (const ms of values) {
    const line = { ...LINES[0]!, ms, backend: { tran: 'ORDINQ', rc: 0, reason: undefined, ms: ms / 2 } };
    writeRequestLine(mine, 'info', 'request completed', line);
    theirs.info({ ...line }, 'request completed');
  }
  assert.equal(ours.length, values.length);
  for (let i = 0; i < values.length; i++) assert.equal(ours[i], pinos[i], `ms ${values[i]}`);
});
