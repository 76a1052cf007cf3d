/**
 * The API's Prometheus metrics (prom-client), one registry per app, named by the OpenTelemetry semantic
 * conventions; every label value comes from a closed set the service owns, never from the caller.
 */
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Registry, type Metric } from 'prom-client';
import type { TranCode } from '../backend/copybooks/index.ts';

/** OpenTelemetry's advised buckets for http.server.request.duration, seconds. */
export const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** A back-end transaction takes well under a millisecond to seconds: finer at the low end than HTTP's. */
export const TRANSACTION_DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** Why a back-end call has no return code: it did not answer, or not in time. */
export type TransportFailure = 'timeout' | 'unavailable';

/** Methods OpenTelemetry names; any other is `_OTHER`, so no label takes a caller's token. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** `:name` path parameters as OpenAPI writes them: /v1/orders/:orderId → /v1/orders/{orderId}. */
export function routeTemplate(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}');
}

interface Child {
  observe(value: number): void;
}

interface RouteSeries {
  template: string;
  /** method → status code → the histogram's child of that route, method and status. */
  byMethod: Map<string, Map<number, Child>>;
}

export interface Metrics {
  readonly registry: Registry;
  /**
   * One request answered. `routeConfig` is the matched route's config object (the same object for every
   * request of the route: the key of its series), `url` its template; both undefined-safe for no route.
   */
  observeRequest(routeConfig: object, url: string | undefined, method: string, status: number, seconds: number): void;
  /** One back-end transaction: its return code, or why it has none. */
  observeTransaction(tran: string, returnCode: number | TransportFailure, seconds: number): void;
  /** A request refused by a rate limit (`policy`: the limit's name: read, write, public, auth, address). */
  countRateLimited(policy: string): void;
  /** An answer replayed for a repeated Idempotency-Key, by route template. */
  countReplay(url: string | undefined): void;
  /** A decided outcome of a transaction (status and reason code from its response record). */
  countOutcome(tran: TranCode, status: string, reason: string): void;
}

/**
 * A Prometheus histogram whose series count their own buckets, rendered by prom-client's registry as its own
 * histograms are (`_bucket` with `le`, `_sum`, `_count`), so the hot path skips prom-client's labelled observe,
 * which hashes the label values on every call (twice per request).
 */
export class CountingHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  private readonly series: Array<{ labels: Record<string, string>; buckets: number[]; sum: number; count: number }> =
    [];

  constructor(name: string, help: string, bounds: readonly number[], registry: Registry) {
    this.name = name;
    this.help = help;
    this.bounds = bounds;
    this.registerIn(registry);
  }

  registerIn(registry: Registry): void {
    // prom-client's Metric is a class this collector cannot extend; registries only call get() and reset()
    // eslint-disable-next-line no-restricted-syntax -- the comment above says why
    registry.registerMetric(this as unknown as Metric);
  }

  /** One series; its labels are fixed here, once. */
  seriesOf(labels: Record<string, string>): Child {
    const series = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
    this.series.push(series);
    const bounds = this.bounds;
    return {
      observe(value) {
        series.sum += value;
        series.count += 1;
        for (let i = 0; i < bounds.length; i++) {
          if (value <= bounds[i]!) {
            series.buckets[i]! += 1;
            break;
          }
        }
      },
    };
  }

  get() {
    const values = this.series.flatMap(({ labels, buckets, sum, count }) => {
      let cumulative = 0;
      return [
        ...buckets.map((n, i) => ({
          labels: { le: this.bounds[i]!, ...labels },
          value: (cumulative += n),
          metricName: `${this.name}_bucket`,
        })),
        { labels: { le: '+Inf', ...labels }, value: count, metricName: `${this.name}_bucket` },
        { labels, value: sum, metricName: `${this.name}_sum` },
        { labels, value: count, metricName: `${this.name}_count` },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const series of this.series) {
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}

const GC_METRIC = 'nodejs_gc_duration_seconds';
const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
let processGc: CountingHistogram | null = null;

/**
 * The main thread's collections, process-wide (every registry shows the same): one observer that counts each
 * entry. prom-client's own histogram of the same name records only the first entry of each batch its observer
 * receives, and V8 often reports several collections in one batch.
 */
function gcHistogram(registry: Registry): void {
  registry.removeSingleMetric(GC_METRIC);
  if (!processGc) {
    const histogram = new CountingHistogram(
      GC_METRIC,
      'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
      [0.001, 0.01, 0.1, 1, 2, 5],
      new Registry(),
    );
    const byKind = new Map(
      Object.entries(GC_KINDS).map(([code, kind]) => [Number(code), histogram.seriesOf({ kind })]),
    );
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        byKind.get((entry as { detail?: { kind?: number } }).detail?.kind ?? -1)?.observe(entry.duration / 1000);
      }
    }).observe({ entryTypes: ['gc'] });
    processGc = histogram;
  }
  processGc.registerIn(registry);
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  gcHistogram(registry);

  const requests = new CountingHistogram(
    'http_server_request_duration_seconds',
    'Duration of HTTP server requests (OpenTelemetry http.server.request.duration).',
    HTTP_DURATION_BUCKETS,
    registry,
  );
  const transactions = new CountingHistogram(
    'corebridge_backend_transaction_duration_seconds',
    'Round trip of back-end transactions through the transport, by transaction code and return code (or error_type when none came back).',
    TRANSACTION_DURATION_BUCKETS,
    registry,
  );
  const rateLimited = new Counter({
    name: 'corebridge_rate_limit_rejections_total',
    help: 'Requests refused with 429 by a rate limit, by the limit (policy) that refused them.',
    labelNames: ['corebridge_rate_limit_policy'],
    registers: [registry],
  });
  const replays = new Counter({
    name: 'corebridge_idempotency_replays_total',
    help: 'Answers replayed for a repeated Idempotency-Key, by route template.',
    labelNames: ['http_route'],
    registers: [registry],
  });
  const outcomes = new Counter({
    name: 'corebridge_business_outcomes_total',
    help: 'Decisions of the back-end (CONFIRMED, REJECTED, COMPLETED, APPROVED, ...) by transaction, status and reason code.',
    labelNames: ['corebridge_transaction', 'corebridge_status', 'corebridge_reason_code'],
    registers: [registry],
  });

  // Keyed by the route's config object: one entry per route, made at its first request.
  const routes = new WeakMap<object, RouteSeries>();
  // Requests no route matched (404s, and errors before routing): no http_route, as OpenTelemetry leaves the attribute
  // out.
  const unrouted: RouteSeries = { template: '', byMethod: new Map() };
  function requestChild(series: RouteSeries, method: string, status: number): Child {
    let byStatus = series.byMethod.get(method);
    if (!byStatus) series.byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) {
      child = requests.seriesOf({
        http_request_method: method,
        http_route: series.template,
        http_response_status_code: String(status),
      });
      byStatus.set(status, child);
    }
    return child;
  }

  // transaction code → return code (0–99) or failure → child.
  const byTransaction = new Map<string, Map<number | TransportFailure, Child>>();

  return {
    registry,
    observeRequest(routeConfig, url, method, status, seconds) {
      let series = url === undefined ? unrouted : routes.get(routeConfig);
      if (!series) routes.set(routeConfig, (series = { template: routeTemplate(url!), byMethod: new Map() }));
      requestChild(series, KNOWN_METHODS.has(method) ? method : '_OTHER', status).observe(seconds);
    },
    observeTransaction(tran, returnCode, seconds) {
      let byCode = byTransaction.get(tran);
      if (!byCode) byTransaction.set(tran, (byCode = new Map()));
      let child = byCode.get(returnCode);
      if (!child) {
        child = transactions.seriesOf(
          typeof returnCode === 'number'
            ? {
                corebridge_transaction: tran,
                corebridge_return_code: String(returnCode).padStart(2, '0'),
                error_type: '',
              }
            : { corebridge_transaction: tran, corebridge_return_code: '', error_type: returnCode },
        );
        byCode.set(returnCode, child);
      }
      child.observe(seconds);
    },
    countRateLimited(policy) {
      rateLimited.labels(policy).inc();
    },
    countReplay(url) {
      replays.labels(url === undefined ? '' : routeTemplate(url)).inc();
    },
    countOutcome(tran, status, reason) {
      outcomes.labels(tran, status, reason).inc();
    },
  };
}
