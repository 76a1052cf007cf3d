/** The observability settings: METRICS_*, OTEL_*, LOG_FORMAT, and their errors. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('metrics: 127.0.0.1:9464 by default, METRICS_HOST/METRICS_PORT move it, METRICS_PORT=0 turns it off', () => {
  assert.deepEqual(loadConfig({}).metrics, { host: '127.0.0.1', port: 9464 });
  assert.deepEqual(loadConfig({ METRICS_HOST: '0.0.0.0', METRICS_PORT: '9100' }).metrics, {
    host: '0.0.0.0',
    port: 9100,
  });
  assert.equal(loadConfig({ METRICS_PORT: '0' }).metrics, null);
  assert.throws(
    () => loadConfig({ METRICS_PORT: 'ninety' }),
    (e: unknown) => e instanceof ConfigError && e.variable === 'METRICS_PORT',
  );
});

test('tracing: off without an OTLP endpoint; the traces URL derived as OpenTelemetry does; OTEL_SDK_DISABLED wins', () => {
  assert.equal(loadConfig({}).tracing, null);
  assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
    tracesEndpoint: 'http://collector:4318/v1/traces',
    serviceName: 'corebridge',
  });
  assert.deepEqual(
    loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
      OTEL_SERVICE_NAME: 'api-eu',
    }).tracing,
    {
      tracesEndpoint: 'https://traces.example/otlp',
      serviceName: 'api-eu',
    },
  );
  assert.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
    null,
  );
  assert.throws(
    () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
    (e: unknown) => e instanceof ConfigError && e.variable === 'OTEL_EXPORTER_OTLP_ENDPOINT',
  );
});

test('LOG_FORMAT: pretty or json; anything else is refused by name', () => {
  assert.equal(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
  assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
  // The default follows the terminal: tests run with stdout piped.
  assert.equal(loadConfig({}).logFormat, process.stdout.isTTY ? 'pretty' : 'json');
  assert.throws(() => loadConfig({ LOG_FORMAT: 'yaml' }), /LOG_FORMAT must be one of pretty, json/);
});
