/** Where the metrics are served (METRICS_*) and where traces go (OTEL_*). */
import { ConfigError, flag, integer, parsed, read, section, text, type Env } from '../settings/schema.ts';
import type { TracingSettings } from './tracing.ts';

export type { TracingSettings } from './tracing.ts';

function httpUrl(value: string, name: string): string {
  if (value && (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))) {
    throw new ConfigError(name, `must be an http:// or https:// URL, got "${value}"`);
  }
  return value;
}

export const OBSERVABILITY_SETTINGS = section('Metrics and traces', {
  METRICS_PORT: integer({
    default: 9464,
    min: 0,
    max: 65535,
    description: 'Prometheus text at /metrics on its own listener; 0 turns it off',
  }),
  METRICS_HOST: text({
    default: '127.0.0.1',
    pattern: /^[A-Za-z0-9.:\-[\]]+$/,
    allowed: 'host name or address',
    description: 'the address the metrics listen on',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: parsed({
    allowed: 'http(s) URL',
    parse: httpUrl,
    description:
      'e.g. http://localhost:4318: traces are exported (OTLP/HTTP) only when set; ' +
      "the other OTEL_EXPORTER_OTLP_* settings are the exporter's own",
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: parsed({
    allowed: 'http(s) URL',
    parse: httpUrl,
    description: 'the traces URL itself (default ENDPOINT + /v1/traces)',
  }),
  OTEL_SERVICE_NAME: text({ default: 'corebridge', description: 'service.name of the spans' }),
  OTEL_SDK_DISABLED: flag({ default: false, description: 'true: no export even with an endpoint' }),
});

/** Prometheus text at /metrics on a listener of its own (METRICS_HOST, METRICS_PORT); null: METRICS_PORT=0, none. */
export type MetricsSettings = { host: string; port: number } | null;

export function loadMetricsSettings(env: Env): MetricsSettings {
  const port = read(env, OBSERVABILITY_SETTINGS, 'METRICS_PORT');
  if (port === 0) return null;
  return { port, host: read(env, OBSERVABILITY_SETTINGS, 'METRICS_HOST') };
}

/**
 * Tracing, or null: off, no OTLP endpoint configured, or OTEL_SDK_DISABLED=true. The traces URL as
 * OpenTelemetry derives it: the traces endpoint as given, or the base endpoint with /v1/traces appended.
 */
export function loadTracingSettings(env: Env): TracingSettings | null {
  if (read(env, OBSERVABILITY_SETTINGS, 'OTEL_SDK_DISABLED')) return null;
  const traces = read(env, OBSERVABILITY_SETTINGS, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = read(env, OBSERVABILITY_SETTINGS, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!traces && !base) return null;
  return {
    tracesEndpoint: traces || `${base.replace(/\/+$/, '')}/v1/traces`,
    serviceName: read(env, OBSERVABILITY_SETTINGS, 'OTEL_SERVICE_NAME'),
  };
}
