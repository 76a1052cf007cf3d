/**
 * Fallback load generator for npm run bench when wrk is not installed: one autocannon run, started by
 * bench/api.bench.ts as its own (pinned) process, printing the same BENCH_JSON line as report.lua.
 *
 *   node bench/wrk/autocannon-load.ts '{"url":…,"method":"GET","authorization":…,"connections":50,"seconds":10}'
 *
 * With "body" and "keyPrefix", every request is a POST of that body with its own Idempotency-Key; with
 * "accounts" too, {debtor} and {creditor} in the body become two different ones of them, at random.
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  authorization: string;
  connections: number;
  seconds: number;
  body?: string;
  keyPrefix?: string;
  accounts?: string[];
}

function payload(spec: LoadSpec): string {
  const accounts = spec.accounts ?? [];
  if (accounts.length < 2) return spec.body!;
  const d = Math.floor(Math.random() * accounts.length);
  let c = Math.floor(Math.random() * (accounts.length - 1));
  if (c >= d) c += 1;
  return spec.body!.replaceAll('{debtor}', accounts[d]!).replaceAll('{creditor}', accounts[c]!);
}

function options(spec: LoadSpec): autocannon.Options {
  const headers: Record<string, string> = { authorization: spec.authorization };
  if (spec.body === undefined)
    return { url: spec.url, method: spec.method, headers, connections: spec.connections, duration: spec.seconds };
  headers['content-type'] = 'application/json';
  let counter = 0;
  const keyPrefix = spec.keyPrefix ?? 'bench';
  return {
    url: spec.url,
    method: spec.method,
    headers,
    body: spec.body,
    connections: spec.connections,
    duration: spec.seconds,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: payload(spec),
          headers: { ...req.headers, 'idempotency-key': `${keyPrefix}-${++counter}` },
        }),
      },
    ],
  };
}

const spec = JSON.parse(process.argv[2] ?? '') as LoadSpec;
const r = await autocannon(options(spec));
const line = {
  requests: r.requests.total,
  durationMs: r.duration * 1000,
  rps: r.requests.total / r.duration,
  p50Ms: r.latency.p50,
  p99Ms: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors + r.timeouts,
};
console.log(`BENCH_JSON ${JSON.stringify(line)}`);
