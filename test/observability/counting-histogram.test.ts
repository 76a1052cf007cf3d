/**
 * The request and transaction histograms count their own buckets: their text is prom-client's Histogram's, to the byte.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { CountingHistogram } from '../../src/observability/metrics.ts';

test("CountingHistogram renders as prom-client's Histogram for the same observations, and counts from zero after a reset", async () => {
  const buckets = [0.005, 0.01, 0.1, 1];
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({
    name: 'x_seconds',
    help: 'help text',
    labelNames: ['route', 'code'],
    buckets,
    registers: [theirs],
  });
  const counting = new CountingHistogram('x_seconds', 'help text', buckets, ours);
  const a = counting.seriesOf({ route: '/v1/orders/{orderId}', code: '200' });
  const b = counting.seriesOf({ route: '', code: '404' });
  // On the bounds, between them, above the last.
  for (const v of [0, 0.005, 0.0051, 0.01, 0.5, 1, 1.5, 12.25]) {
    a.observe(v);
    reference.labels('/v1/orders/{orderId}', '200').observe(v);
  }
  b.observe(0.002);
  reference.labels('', '404').observe(0.002);
  const text = await ours.metrics();
  assert.equal(text, await theirs.metrics());
  assert.match(text, /x_seconds_bucket\{le="0.01",route="\/v1\/orders\/\{orderId\}",code="200"\} 4\n/);
  assert.match(text, /x_seconds_count\{route="\/v1\/orders\/\{orderId\}",code="200"\} 8\n/);

  ours.resetMetrics();
  theirs.resetMetrics();
  a.observe(0.05);
  reference.labels('/v1/orders/{orderId}', '200').observe(0.05);
  // prom-client drops its series on reset; ours keep theirs at zero.
  assert.match(await ours.metrics(), /x_seconds_count\{route="\/v1\/orders\/\{orderId\}",code="200"\} 1\n/);
});
