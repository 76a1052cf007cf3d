/**
 * LOG_FORMAT=pretty: the request line in words (status, method, path, duration, principal, request id), one line
 * per request, redacted as the JSON line is; other lines as pino-pretty writes them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { redactionOptions } from '../../../src/logging/redaction.ts';
import { prettyDestination } from '../../../src/logging/pretty.ts';
import { writeRequestLine, type RequestLine } from '../../../src/api/logging/request-line.ts';

/** A logger as src/logger.ts makes one for LOG_FORMAT=pretty, without colours, writing into `lines`. */
function prettyLogger(lines: string[]) {
  return pino(
    { level: 'info', base: { service: 'corebridge' }, ...redactionOptions() },
    prettyDestination({ colorize: false, to: { write: (text: string) => lines.push(text) } }),
  );
}

const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

const payment: RequestLine = {
  method: 'POST',
  url: '/v1/payments',
  route: '/v1/payments',
  status: 201,
  ms: 4.12,
  principal: 'alan',
  client: '127.0.0.1',
  code: undefined,
  backend: { tran: 'PAYCRT', rc: 0, reason: undefined, ms: 1.5 },
  trace_id: undefined,
  span_id: undefined,
};

/** The line without its time: `[HH:MM:ss.l] ` */
const untimed = (line: string) => line.replace(/^\[\d\d:\d\d:\d\d\.\d{3}\] /, '');

test('a request line reads as status, method, path, duration, principal, request id; one line each', () => {
  const lines: string[] = [];
  const log = prettyLogger(lines);
  writeRequestLine(log.child({ requestId: 'req-1' }), 'info', 'request completed', payment);
  writeRequestLine(log.child({ requestId: 'req-2' }), 'error', 'request failed', {
    ...payment,
    method: 'GET',
    url: `/v1/orders?access_token=${jwt}`,
    route: '/v1/orders',
    status: 503,
    ms: 250.4,
    principal: undefined,
    client: '203.0.113.7',
    code: 'BACKEND_UNAVAILABLE',
    backend: { tran: 'ORDLST', rc: null, reason: 'timeout', ms: 2000 },
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    span_id: '00f067aa0ba902b7',
  });
  assert.equal(lines.length, 2, 'one line per request');
  assert.equal(untimed(lines[0]!), 'INFO: 201 POST /v1/payments 4.1 ms alan req=req-1 backend PAYCRT rc=0 1.5 ms\n');
  // The query's token is redacted as in the JSON line; the fields the words do not say stay after them.
  assert.equal(
    untimed(lines[1]!),
    'ERROR: 503 GET /v1/orders?access_token=[redacted] 250 ms from 203.0.113.7 req=req-2 BACKEND_UNAVAILABLE backend ORDLST rc=null timeout 2000 ms {"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"}\n',
  );
});

test('other lines keep their message and fields, secrets redacted', () => {
  const lines: string[] = [];
  const log = prettyLogger(lines);
  log.child({ requestId: 'req-3' }).info({ principal: 'ada', clientId: 'demo' }, 'user signed in');
  log.info({ authorization: `Bearer ${jwt}`, status: 200, method: 'GET' }, 'request completed elsewhere');
  assert.deepEqual(lines.map(untimed), [
    'INFO: user signed in {"requestId":"req-3","principal":"ada","clientId":"demo"}\n',
    'INFO: request completed elsewhere {"authorization":"[redacted]","status":200,"method":"GET"}\n',
  ]);
});
